//go:build (!jemalloc || !cgo) && (linux || darwin || freebsd)

package z

import "golang.org/x/sys/unix"

// mappedMin is the size from which Calloc maps memory rather than using the Go
// heap: in Badger, a table builder's buffers, megabytes that Badger frees itself.
// On the heap they counted toward the collector's goal, so a heap paced at GOGC 50
// grew by half their size again, and their pages stayed resident after use until
// the scavenger got to them. Mapped, they cost the pages written, and Free returns
// them at once.
const mappedMin = 1 << 20

// callocMapped maps n bytes of zeroed memory, or returns nil if it cannot.
func callocMapped(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

// freeMapped unmaps b if callocMapped made it. unix.Munmap knows its mappings by
// their last byte and refuses anything else, a slice on the Go heap included.
func freeMapped(b []byte) {
	if cap(b) > 0 {
		_ = unix.Munmap(b[:cap(b)])
	}
}
