package persist

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Each commit makes a system call of its own: the free-space check (statfs). One
// made while the process was at rest wakes Go's monitor thread, which then polls
// every 20 µs for as long as the process stays busy: at a few hundred readings a
// second, for most of a commit. A call that cannot wait need not tell the runtime,
// so where the state is on a local filesystem, whose statfs reads counters the
// kernel keeps in memory, the reserve makes it raw. On a network or user-space
// filesystem it stays an ordinary call, which may wait for a server. (The marker is
// a mapped file for the same reason: marker.go.)

// localMagic are the filesystems (statfs f_type) whose statfs never waits for a
// network or another process. The f_type is a signed word, 32 bits wide on 32-bit
// platforms, so it is compared as the 32 bits the kernel defines the magics in.
var localMagic = map[uint32]bool{
	unix.EXT4_SUPER_MAGIC:  true, // ext2 and ext3 too
	unix.XFS_SUPER_MAGIC:   true,
	unix.BTRFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC:  true,
	unix.TMPFS_MAGIC:       true,
	ubifsMagic:             true,
	unix.JFFS2_SUPER_MAGIC: true,
}

// ubifsMagic is UBIFS's, which golang.org/x/sys/unix does not name.
const ubifsMagic = 0x24051905

// quickPath returns dir as the kernel takes a path when dir is on a local
// filesystem, nil otherwise.
func quickPath(dir string) *byte {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || !localMagic[uint32(st.Type)] {
		return nil
	}
	p, err := unix.BytePtrFromString(dir)
	if err != nil {
		return nil
	}
	return p
}

// quickFreeBytes is freeBytes for a path from quickPath, without telling the runtime.
func quickFreeBytes(path *byte) (uint64, error) {
	var st unix.Statfs_t
	for {
		switch e := rawStatfs(path, &st); e {
		case 0:
			return available(&st), nil
		case syscall.EINTR:
		default:
			return 0, e
		}
	}
}
