//go:build linux || darwin || freebsd

package z

import "golang.org/x/sys/unix"

// ReleasePages drops b, whole pages of a shared file mapping, from the process's
// memory: the file keeps what was written (dirty pages stay in the page cache until
// written back), and the next access maps the pages again. Badger's write-ahead logs
// and tables use it for pages they wrote but will seldom read.
func ReleasePages(b []byte) {
	_ = unix.Madvise(b, unix.MADV_DONTNEED)
}
