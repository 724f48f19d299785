package mqtt

import (
	"fmt"
	"sync"
	"testing"
)

// Forks of one Extractor decode at the same time, each into its own buffers: every
// source actor of a stream definition holds one.
func TestForksOfAnExtractorDecodeConcurrently(t *testing.T) {
	e := NewExtractor(ExtractSpec{Timestamp: "ts", Unit: Millis, KeyField: "k", KeySegment: -1, Values: []string{"v"}})
	var wg sync.WaitGroup
	for i := range 4 {
		f := e.Fork()
		wg.Go(func() {
			var r Reading
			for j := range 200 {
				key := fmt.Sprintf("k%d-%d", i, j%7)
				if err := f.Extract("t", fmt.Appendf(nil, `{"k":%q,"ts":1733140000000,"v":%d}`, key, j), &r); err != nil {
					t.Error(err)
					return
				}
				if r.Key != key || r.Values[0].Num != float64(j) {
					t.Errorf("fork %d read %q %v, want %q %d", i, r.Key, r.Values, key, j)
					return
				}
			}
		})
	}
	wg.Wait()
}
