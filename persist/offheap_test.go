package persist

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger's table builders take their buffers from z.Calloc; the patched copy in
// third_party/ristretto maps large ones outside the Go heap, so they do not raise
// the collector's goal and go back to the system when Badger frees them.
func TestLargeBadgerBuffersAreOutsideTheGoHeap(t *testing.T) {
	const n = 8 << 20
	before := heapObjects()
	b := z.Calloc(n, "test")
	if grew := int64(heapObjects()) - int64(before); grew > n/2 {
		t.Fatalf("z.Calloc(%d) grew the Go heap by %d bytes; want it mapped outside", n, grew)
	}
	for i := range b {
		if b[i] != 0 {
			t.Fatalf("byte %d is %d; want zeroed memory", i, b[i])
		}
	}
	b[0], b[n-1] = 1, 1
	z.Free(b)
	small := z.Calloc(64, "test") // on the heap: Free leaves it alone
	z.Free(small)
	small[0] = 1
}

func heapObjects() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
