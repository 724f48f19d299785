//go:build linux && (386 || arm || mips || mipsle)

package persist

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawStatfs is statfs(2) as golang.org/x/sys/unix makes it on 32-bit Linux
// (statfs64, which takes the struct's size), raw.
func rawStatfs(path *byte, st *unix.Statfs_t) syscall.Errno {
	_, _, e := syscall.RawSyscall(unix.SYS_STATFS64, uintptr(unsafe.Pointer(path)), unsafe.Sizeof(*st), uintptr(unsafe.Pointer(st)))
	return e
}
