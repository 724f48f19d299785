package actors

import (
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// A device pipeline restores its state in its first Started: it reads every saved
// key and stream and spawns their actors, seconds with 100,000 open windows, while
// messages for the device wait in its mailbox. Until every pipeline has done so,
// edged is not ready: /healthz says so rather than 200.

// restoreGate counts the device pipelines that have not finished their first restore,
// at start and after a live reload started or replaced them.
type restoreGate struct {
	mu      sync.Mutex
	left    int
	waiters []chan struct{} // closed when left reaches 0
}

// watch wraps the producer of a device's pipeline so that the end of its first
// Started counts the device restored. A restart after a panic restores again, but
// the device was ready before; a panic during the first restore leaves it counted
// until the restarted pipeline's restore succeeds.
func (g *restoreGate) watch(produce actor.Producer) actor.Producer {
	g.mu.Lock()
	g.left++
	g.mu.Unlock()
	var once sync.Once
	done := func() { once.Do(g.restoredOne) }
	return func() actor.Actor { return &restoreWatch{Actor: produce(), done: done} }
}

func (g *restoreGate) restoredOne() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.left--
	if g.left == 0 {
		for _, w := range g.waiters {
			close(w)
		}
		g.waiters = nil
	}
}

// restored returns a channel closed once every device watched so far has restored.
func (g *restoreGate) restored() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := make(chan struct{})
	if g.left == 0 {
		close(c)
	} else {
		g.waiters = append(g.waiters, c)
	}
	return c
}

// problem describes the devices still restoring, or "".
func (g *restoreGate) problem() string {
	g.mu.Lock()
	n := g.left
	g.mu.Unlock()
	if n > 0 {
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
