package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/harness"
)

const localBroker = "tcp://127.0.0.1:1883"

func TestResultsArriveForEverySensor(t *testing.T) {
	t.Parallel()
	prefix := fmt.Sprintf("smoke%d", time.Now().UnixNano())
	path := harness.WriteConfig(t, daemonYAML("memory", localBroker, prefix), map[string]string{"dev.yaml": tumblingDevice{
		device: "dev", stream: "s", topic: prefix + "/+/data", qos: 0,
		watermark:  "{strategy: bounded, max_out_of_orderness: 100ms, interval: 20ms, idle_timeout: 300ms}",
		aggregates: "[count, avg(temp)]",
		output:     prefix + "/out/{key}",
	}.yaml()})
	coll := harness.Collect(t, localBroker, prefix+"/out/#")
	harness.Start(t, path)
	pub := connect(t, "publisher", mqtt.Options{URL: localBroker, ClientID: prefix + "-pub", CleanSession: true})
	base := int64(1_733_140_000_000)
	for i := range 30 {
		for s := range 3 {
			payload := fmt.Sprintf(`{"ts":%d,"temp":%d}`, base+int64(i)*100, i)
			pub.Publish(fmt.Sprintf("%s/s-%d/data", prefix, s), 0, []byte(payload), nil)
		}
	}
	harness.Eventually(t, 10*time.Second, "3 windows for each of 3 sensors", func() bool { return coll.Len() >= 9 })
	for _, r := range coll.Results(t) {
		if *r.Values["count"] != 10 {
			t.Errorf("result %+v: count %v, want 10", r, *r.Values["count"])
		}
	}
}
