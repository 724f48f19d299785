package actors

import (
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// A device pipeline takes messages once its first Started has read the device's
// saved state and queued it for restore: the streams and keys themselves come back
// in chunks between messages, and any of them a message needs comes back first (see
// pipeline_restore.go). Until every pipeline has got that far, messages for its device wait
// and edged is not ready: /healthz says so rather than 200. Keys still restoring in
// the background do not hold readiness; /status shows them.

// restoreGate counts the device pipelines that have not finished their first restore,
// at start and after a live reload started or replaced them.
type restoreGate struct {
	mu      sync.Mutex
	left    int
	waiters []chan struct{} // closed when left reaches 0
}

// watch wraps the producer of a device's pipeline so that the end of its first
// Started counts the device restored, and returns a channel closed then. A restart
// after a panic restores again, but the device was ready before; a panic during the
// first restore leaves it counted until the restarted pipeline's restore succeeds.
func (g *restoreGate) watch(produce actor.Producer) (actor.Producer, <-chan struct{}) {
	g.mu.Lock()
	g.left++
	g.mu.Unlock()
	var once sync.Once
	restored := make(chan struct{})
	done := func() {
		once.Do(func() {
			close(restored)
			g.restoredOne()
		})
	}
	return func() actor.Actor { return &restoreWatch{Actor: produce(), done: done} }, restored
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
