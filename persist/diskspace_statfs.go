//go:build linux || darwin

package persist

import "golang.org/x/sys/unix"

// freeBytes returns the bytes an unprivileged writer may still use on the
// filesystem holding path (root may use a few percent more on ext4; edged keeps
// its reserve from what everyone may use).
func freeBytes(path string) (free uint64, known bool, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false, err
	}
	return available(&st), true, nil
}

// available is the bytes an unprivileged writer may still use, from statfs.
func available(st *unix.Statfs_t) uint64 { return uint64(st.Bavail) * uint64(st.Bsize) }
