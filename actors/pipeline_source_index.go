package actors

import "sync"

// sourceIndex is a pipeline's source actors by concrete topic. The pipeline adds to
// it; the router reads it to send a message straight to its source. One map serves
// both, since a gateway holds an entry per sensor.
type sourceIndex struct {
	mu sync.RWMutex
	m  map[string]*sourceHandle
}

func newSourceIndex() *sourceIndex { return &sourceIndex{m: map[string]*sourceHandle{}} }

func (x *sourceIndex) get(topic string) *sourceHandle {
	x.mu.RLock()
	h := x.m[topic]
	x.mu.RUnlock()
	return h
}

func (x *sourceIndex) add(topic string, h *sourceHandle) {
	x.mu.Lock()
	x.m[topic] = h
	x.mu.Unlock()
}

// remove takes a topic's source out of the index (it is being passivated): a
// message routed after this finds none and asks the pipeline.
func (x *sourceIndex) remove(topic string) {
	x.mu.Lock()
	delete(x.m, topic)
	x.mu.Unlock()
}

// reset forgets every source: a restarted pipeline's sources are new actors.
func (x *sourceIndex) reset() {
	x.mu.Lock()
	x.m = map[string]*sourceHandle{}
	x.mu.Unlock()
}
