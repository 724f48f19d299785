package actors

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged/edged/configs"
)

// A reload commits what the replaced pipeline took, its streams' generators
// included: a reading taken after the last tick must not be lost from the saved
// state, or the new pipeline's source resumes from an older max event time and
// watermark (the skew guard then measures from the older one).
func TestAReloadBeforeATickSavesTheNewestMaxEventTime(t *testing.T) {
	const t0 int64 = 1_733_140_000_000
	d, _, logs, path := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a")})
	publish := func(at, ts int64) {
		d.topo.router.route(&Inbound{Topic: "a/k", Payload: fmt.Appendf(nil, `{"ts":%d,"v":1}`, ts), QoS: 1, At: at}, func() {})
	}
	publish(1, t0+100)
	d.topo.tick(10)
	for _, done := range d.topo.flushAll() {
		<-done
	}
	publish(20, t0+300) // no tick after it

	resizeW2(t, d, path, logs)
	st, ok, err := d.store.LoadStream("a", "a/k")
	if err != nil || !ok {
		t.Fatalf("the stream's state is not saved (%v)", err)
	}
	if st.Max != t0+300 || st.Watermark != t0+299 {
		t.Errorf("saved max event time %d, watermark %d; want %d and %d, from the reading after the last tick", st.Max-t0, st.Watermark-t0, 300, 299)
	}
}

// resizeW2 reloads device a of reloadDeviceFile with window w2 twice as long: its
// pipeline is replaced.
func resizeW2(t *testing.T, d *Daemon, path string, logs *bytes.Buffer) {
	t.Helper()
	changed := strings.Replace(reloadDeviceFile("a"), "{name: w2, stream: s, type: tumbling, size: 1s", "{name: w2, stream: s, type: tumbling, size: 2s", 1)
	dev, err := configs.ParseDevice(filepath.Join(filepath.Dir(path), "a.yaml"), []byte(changed))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Apply(context.Background(), []*configs.Device{dev}); err != nil {
		t.Fatalf("reload refused: %v\n%s", err, logs)
	}
}
