//go:build linux && !(386 || arm || mips || mipsle)

package persist

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawStatfs is statfs(2) as golang.org/x/sys/unix makes it on 64-bit Linux, raw.
func rawStatfs(path *byte, st *unix.Statfs_t) syscall.Errno {
	_, _, e := syscall.RawSyscall(unix.SYS_STATFS, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(st)), 0)
	return e
}
