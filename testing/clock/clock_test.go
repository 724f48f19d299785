package clock

import (
	"sync"
	"testing"
)

func TestManualClockMovesOnlyWhenTold(t *testing.T) {
	c := New(1_000)
	steps := []struct {
		name string
		move func()
		want int64
	}{
		{"starts at the given reading", func() {}, 1_000},
		{"advances by a duration", func() { c.Advance(250) }, 1_250},
		{"goes back on a negative advance", func() { c.Advance(-50) }, 1_200},
		{"jumps to a set reading", func() { c.Set(10_000) }, 10_000},
	}
	for _, s := range steps {
		s.move()
		if got := c.Now(); got != s.want {
			t.Fatalf("%s: Now() = %d, want %d", s.name, got, s.want)
		}
	}
}

func TestManualClockIsSafeForConcurrentUse(t *testing.T) {
	c := New(0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1_000 {
				c.Advance(1)
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
	if got := c.Now(); got != 4_000 {
		t.Fatalf("Now() = %d after 4000 concurrent advances of 1 ms, want 4000", got)
	}
}
