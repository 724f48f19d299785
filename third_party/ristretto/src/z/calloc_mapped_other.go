//go:build (!jemalloc || !cgo) && !(linux || darwin || freebsd)

package z

// mappedMin is unreachable where memory is not mapped: Calloc uses the Go heap.
const mappedMin = int(^uint(0) >> 1)

func callocMapped(int) []byte { return nil }

func freeMapped([]byte) {}
