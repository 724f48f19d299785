package actors

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// A device pipeline restores its state in its first Started: it reads every saved
// key and stream and spawns their actors, seconds with 100,000 open windows, while
// messages for the device wait in its mailbox. Until every pipeline has done so,
// edged is not ready: /healthz says so rather than 200.

// restoreGate counts the device pipelines that have not finished their first restore,
// at start and after a live reload started or replaced them.
type restoreGate struct {
	left atomic.Int64
}

// watch wraps the producer of a device's pipeline so that the end of its first
// Started counts the device restored. A restart after a panic restores again, but
// the device was ready before; a panic during the first restore leaves it counted
// until the restarted pipeline's restore succeeds.
func (g *restoreGate) watch(produce actor.Producer) actor.Producer {
	g.left.Add(1)
	var once sync.Once
	done := func() { once.Do(func() { g.left.Add(-1) }) }
	return func() actor.Actor { return &restoreWatch{Actor: produce(), done: done} }
}

// problem describes the devices still restoring, or "".
func (g *restoreGate) problem() string {
	if n := g.left.Load(); n > 0 {
		return fmt.Sprintf("restoring state: %d devices not yet restored, their messages wait", n)
	}
	return ""
}

type restoreWatch struct {
	actor.Actor
	done func()
}

func (w *restoreWatch) Receive(ctx actor.Context) {
	w.Actor.Receive(ctx)
	if _, ok := ctx.Message().(*actor.Started); ok {
		w.done()
	}
}
