package actors

import (
	"context"
	"sync/atomic"
	"testing"
)

// While a device is replaced its messages wait, unacknowledged, and the other
// devices' messages go on; released, the held ones are delivered in order.
func TestAHeldDeviceWaitsAndTheOthersGoOn(t *testing.T) {
	d, _, _, _ := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a"), "b": reloadDeviceFile("b")})
	r := d.topo.router
	var ackedA, ackedB atomic.Int64
	holds, err := r.holdDevices(context.Background(), []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	r.route(&Inbound{Topic: "a/k", Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, func() { ackedA.Add(1) })
	r.route(&Inbound{Topic: "a/k", Payload: []byte(`{"ts":1733140000200,"v":2}`), QoS: 1, At: 1}, func() { ackedA.Add(1) })
	r.route(&Inbound{Topic: "b/k", Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, func() { ackedB.Add(1) })
	for _, done := range d.topo.flushAll() {
		<-done
	}
	if ackedA.Load() != 0 || ackedB.Load() != 1 || len(holds["a"].msgs) != 2 {
		t.Fatalf("while a is held: a acked %d (want 0), b acked %d (want 1), %d held (want 2)", ackedA.Load(), ackedB.Load(), len(holds["a"].msgs))
	}
	r.release(holds["a"])
	for _, done := range d.topo.flushAll() {
		<-done
	}
	if ackedA.Load() != 2 {
		t.Fatalf("after the release a acked %d of 2", ackedA.Load())
	}
	select {
	case <-holds["a"].released:
	default:
		t.Fatal("the hold was not released")
	}
	r.route(&Inbound{Topic: "a/k", Payload: []byte(`{"ts":1733140000300,"v":3}`), QoS: 1, At: 1}, func() { ackedA.Add(1) })
	for _, done := range d.topo.flushAll() {
		<-done
	}
	if ackedA.Load() != 3 {
		t.Fatalf("after the release a message to a is not taken directly: %d acked", ackedA.Load())
	}
}
