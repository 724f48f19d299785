package persist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DiscardPrefix starts the name of the directory Discard moves state into.
const DiscardPrefix = "discarded-"

// Discard moves everything in the state directory dir into a new directory
// dir/discarded-<UTC time> and returns its path, so that the next Open starts an
// empty store while the old state is kept for a backup or an investigation. It moves
// into dir rather than beside it: dir may be a mount point, or sit in a directory
// edged cannot write. Earlier discarded state stays where it is. It takes the
// directory lock, so it never moves the files of a running edged.
func Discard(dir string, now time.Time) (string, error) {
	lock, err := lockDir(dir, false)
	if err != nil {
		return "", err
	}
	defer lock.release()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("discarding the state in %s: %w", dir, err)
	}
	to := filepath.Join(dir, DiscardPrefix+now.UTC().Format("20060102T150405Z"))
	if err := os.Mkdir(to, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			err = fmt.Errorf("%s exists already; try again in a second", to)
		}
		return "", fmt.Errorf("discarding the state in %s: %w", dir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), DiscardPrefix) {
			continue
		}
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return "", fmt.Errorf("discarding the state in %s: %w", dir, err)
		}
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	return to, nil
}
