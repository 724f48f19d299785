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
	dir string
	min uint64 // bytes; 0: no check
}

// check returns an error wrapping ErrDiskLow when less than min bytes are free
// where dir is, a directory that exists: Commit checks it often, so it costs one
// statfs.
func (r diskReserve) check() error {
	if r.min == 0 {
		return nil
	}
	free, known, err := freeBytes(r.dir)
	switch {
	case err != nil:
		return fmt.Errorf("checking the free space for the state in %s: %w", r.dir, err)
	case !known || free >= r.min:
		return nil
	}
	return fmt.Errorf("%w: %s free, below the reserve of %s (limits.min_free_disk)", ErrDiskLow, mib(free), mib(r.min))
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
