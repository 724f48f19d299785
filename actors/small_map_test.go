package actors

import (
	"fmt"
	"maps"
	"testing"
)

// A smallMap answers as a Go map does, below and past the entries it searches in
// order, and after it is cleared.
func TestSmallMapAnswersAsAMap(t *testing.T) {
	for _, n := range []int{0, 1, smallMapLen, smallMapLen + 1, 3 * smallMapLen} {
		var m smallMap[string, int]
		want := map[string]int{}
		for i := range n {
			k := fmt.Sprint(i % (n/2 + 1)) // sets some keys twice
			m.set(k, i)
			want[k] = i
		}
		if m.len() != len(want) {
			t.Fatalf("%d sets: len %d, want %d", n, m.len(), len(want))
		}
		if got := maps.Collect(m.all()); !maps.Equal(got, want) {
			t.Fatalf("%d sets: holds %v, want %v", n, got, want)
		}
		for k, v := range want {
			if got, ok := m.get(k); !ok || got != v {
				t.Fatalf("%d sets: get(%q) = %d, %v, want %d", n, k, got, ok, v)
			}
		}
		if _, ok := m.get("absent"); ok {
			t.Fatalf("%d sets: found a key never set", n)
		}
		m.clear()
		if _, ok := m.get("0"); ok || m.len() != 0 {
			t.Fatalf("%d sets: a cleared map still holds %v", n, maps.Collect(m.all()))
		}
	}
}
