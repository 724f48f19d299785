//go:build !linux && !darwin && !freebsd

package z

// ReleasePages leaves the pages mapped where madvise is not available.
func ReleasePages([]byte) {}
