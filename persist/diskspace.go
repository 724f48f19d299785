package persist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrDiskLow is wrapped by Open and Commit when the disk holding the state has less
// free space than Options.MinFreeDisk.
var ErrDiskLow = errors.New("the disk is nearly full")

// diskReserve keeps Badger off a full disk. Badger maps its files into memory and
// grows them as sparse files: a write into a mapped page the filesystem has no room
// for is not an error but a SIGBUS that kills the process. Below the reserve the
// Store writes nothing, so Badger's own background work (flushing a memtable,
// compacting) still finds room for the tables it writes.
type diskReserve struct {
	dir   string
	min   uint64 // bytes; 0: no check
	quick *byte  // dir for a raw statfs, on a local filesystem (quickcalls_linux.go); nil: an ordinary one
}

// newDiskReserve returns the reserve of min bytes for dir, a directory that exists.
func newDiskReserve(dir string, min uint64) diskReserve {
	return diskReserve{dir: dir, min: min, quick: quickPath(dir)}
}

// check returns an error wrapping ErrDiskLow when less than min bytes are free
// where dir is, a directory that exists: Commit checks it often, so it costs one
// statfs.
func (r diskReserve) check() error {
	if r.min == 0 {
		return nil
	}
	free, known, err := r.free()
	switch {
	case err != nil:
		return fmt.Errorf("checking the free space for the state in %s: %w", r.dir, err)
	case !known || free >= r.min:
		return nil
	}
	return fmt.Errorf("%w: %s free, below the reserve of %s (limits.min_free_disk)", ErrDiskLow, mib(free), mib(r.min))
}

func (r diskReserve) free() (free uint64, known bool, err error) {
	if r.quick != nil {
		free, err = quickFreeBytes(r.quick)
		return free, err == nil, err
	}
	return freeBytes(r.dir)
}

// existingAncestor returns dir or its nearest parent that exists: Open checks the
// reserve before it creates the state directory.
func existingAncestor(dir string) string {
	for {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
