package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
)

// A password inside broker.url must not reach the log, where "edged running"
// names the broker.
func TestThePasswordInTheBrokerURLStaysOutOfTheLog(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	url := strings.Replace(mq.URL(), "tcp://", "tcp://edge:s3cret@", 1)
	s := crashConfig(t, url, fmt.Sprintf("redact-%d", time.Now().UnixNano()))
	e := crashStart(t, bin, s.config)
	line, _ := e.logs.find(0, "edged running")
	if want := "broker=tcp://xxxxx@127.0.0.1:"; !strings.Contains(line, want) {
		t.Errorf("the start line does not name the broker as %q: %s", want, line)
	}
	if code := e.term(); code != 0 {
		t.Errorf("edged exited %d after SIGTERM", code)
	}
	if n := e.logs.count("s3cret"); n > 0 {
		t.Errorf("the log quotes the password %d times:\n%s", n, e.logs.tail(40))
	}
}
