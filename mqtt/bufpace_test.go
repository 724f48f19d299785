package mqtt

import (
	"slices"
	"testing"
	"time"
)

// shortReads hands out n bytes per read, up to the buffer's size.
type shortReads struct{ n int }

func (s shortReads) Read(b []byte) (int, error) { return min(s.n, len(b)), nil }

// A read that came back short is followed by the next only readPace after it, when
// it came back within paceWithin of the read before; a full one, one after a pause
// of readPace or more, or one after reads further apart than paceWithin is followed
// at once.
func TestAPacedReaderWaitsOnlyAfterAShortReadWithinThePace(t *testing.T) {
	clock := time.Unix(0, 0)
	var slept []time.Duration
	p := &pacedReader{
		now:   func() time.Time { return clock },
		sleep: func(d time.Duration) { slept = append(slept, d); clock = clock.Add(d) },
	}
	buf := make([]byte, 100)
	read := func(n int, after time.Duration) []time.Duration {
		clock = clock.Add(after)
		slept = nil
		p.r = shortReads{n}
		if _, err := p.Read(buf); err != nil {
			t.Fatal(err)
		}
		return slept
	}
	steps := []struct {
		name  string
		n     int
		after time.Duration
		want  []time.Duration
	}{
		{"the first read", 10, 0, nil},
		{"right after the first read", 10, 0, nil},
		{"right after a short read close to the one before", 10, 0, []time.Duration{readPace}},
		{"a quarter of the pace after a short read", 100, readPace / 4, []time.Duration{readPace * 3 / 4}},
		{"right after a full read", 10, 0, nil},
		{"a whole pace after a short read", 10, readPace, nil},
		{"long after a short read", 10, time.Hour, nil},
		{"right after a short read long after the one before", 10, 0, nil},
		{"right after a short read close to the one before again", 10, 0, []time.Duration{readPace}},
		{"paceWithin after a short read", 10, paceWithin, nil},
		{"right after a short read paceWithin after the one before", 10, 0, nil},
	}
	for _, s := range steps {
		if got := read(s.n, s.after); !slices.Equal(got, s.want) {
			t.Errorf("%s: slept %v, want %v", s.name, got, s.want)
		}
	}
}
