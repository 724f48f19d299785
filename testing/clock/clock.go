// Package clock provides a manual processing-time clock for tests, replay and
// simulations: time in integer milliseconds that moves only when told to, so
// nothing that takes its time from it ever needs to sleep.
//
// It is test support code and imports only the standard library; it must not
// import any edged package, so every package can use it.
package clock

import "sync"

// Manual is a clock that reads a value in milliseconds which only Advance
// and Set change. It is safe for concurrent use: a test goroutine may move it
// while actors read it.
type Manual struct {
	mu  sync.Mutex
	now int64
}

// New returns a clock reading startMs.
func New(startMs int64) *Manual {
	return &Manual{now: startMs}
}

// Now returns the current reading in milliseconds.
func (c *Manual) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by ms; a negative ms moves it back, which is how
// tests simulate a clock jump.
func (c *Manual) Advance(ms int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += ms
}

// Set moves the clock to ms, forward or back.
func (c *Manual) Set(ms int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = ms
}
