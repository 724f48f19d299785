package persist

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// dirLock is edged's hold on a state directory. Open takes it before it looks at
// any file, so it never judges (or a reset never moves) files another edged is
// writing; Badger is told to skip its own lock, which is the same flock.
type dirLock struct{ f *os.File }

func lockDir(dir string, shared bool) (*dirLock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("opening state in %s: %w", dir, err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("opening state in %s: the directory is locked: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("locking state in %s: %w", dir, err)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() {
	if l != nil {
		l.f.Close()
	}
}
