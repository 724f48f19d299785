package actors

import (
	"testing"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// An actor restarted after a panic is a new one of the same stream or key that
// reloads its state from the store: what it was spawned with is older than the store.
func TestARestartedActorReloadsItsStateFromTheStore(t *testing.T) {
	topo, _, _ := newTestTopology(t, supervisionDevice)
	p := topo.router.devices[0].plan
	h := newTestHandle()
	s := newSource(&sourceDef{env: topo.env, device: "d", plan: &p.streams[0]}, "t/a", h, &watermark.GeneratorState{}, false)
	if next := s.Reincarnate().(*source); next == s || !next.reload || next.restored != nil || next.handle != h || next.stream() != "t/a" {
		t.Errorf("the restarted source is %+v", next)
	}
	w := newWindow(newWindowDef(topo.env, "d", &p.windows[0], nil), "a", &persist.KeyState{}, false)
	if next := w.Reincarnate().(*window); next == w || !next.reload || next.restored != nil || next.key != "a" || next.plan != w.plan {
		t.Errorf("the restarted window actor is %+v", next)
	}
}
