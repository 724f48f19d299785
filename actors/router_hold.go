package actors

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// holdQueue keeps the messages of a device while a live reload replaces its
// pipeline, so intake goes on for every other device: they are delivered to the new
// pipeline, in arrival order, once it runs (or acknowledged as taken, if the device
// was removed). Nothing is acknowledged to the broker while held.
type holdQueue struct {
	mu       sync.Mutex
	msgs     []heldMessage
	released chan struct{} // closed once the device takes messages directly again
}

type heldMessage struct {
	in    *Inbound
	ackFn func()
}

func newHoldQueue() *holdQueue { return &holdQueue{released: make(chan struct{})} }

func (h *holdQueue) add(in *Inbound, ackFn func()) {
	h.mu.Lock()
	h.msgs = append(h.msgs, heldMessage{in, ackFn})
	h.mu.Unlock()
}

// full reports whether h holds max messages; a nil h holds none.
func (h *holdQueue) full(max int64) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return int64(len(h.msgs)) >= max
}

func (h *holdQueue) take() []heldMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	msgs := h.msgs
	h.msgs = nil
	return msgs
}

// holdDevices makes the devices ids hold their messages from now on and returns
// their queues by id. It waits for the message being routed, which can wait for
// room on a stalled device; ctx bounds that wait.
func (r *router) holdDevices(ctx context.Context, ids []string) (map[string]*holdQueue, error) {
	holds := map[string]*holdQueue{}
	select {
	case r.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for intake to take the device's messages aside: %w", ctx.Err())
	}
	defer func() { <-r.gate }()
	for i := range r.devices {
		if id := r.devices[i].plan.device.ID; slices.Contains(ids, id) {
			h := newHoldQueue()
			r.devices[i].hold, holds[id] = h, h
		}
	}
	return holds, nil
}

// release hands the messages held in h to the device that holds h now, in order,
// until none is left, then lets the device take messages directly again. Messages of
// a device no longer routed (removed) are acknowledged as done with. It runs on the
// one goroutine that replaces devices, so it reads r.devices without the gate.
func (r *router) release(h *holdQueue) {
	for {
		var d *routedDevice
		for i := range r.devices {
			if r.devices[i].hold == h {
				d = &r.devices[i]
			}
		}
		for _, m := range h.take() {
			switch {
			case d != nil:
				r.deliver(d, m.in, m.ackFn)
			case m.ackFn != nil:
				m.ackFn()
			}
		}
		r.gate <- struct{}{} // no message is added while the gate is held
		h.mu.Lock()
		done := len(h.msgs) == 0
		h.mu.Unlock()
		if done {
			if d != nil {
				d.hold = nil
			}
			close(h.released)
		}
		<-r.gate
		if done {
			return
		}
	}
}
