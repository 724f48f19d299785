package persist

import "fmt"

// recovered turns a Badger panic inside a Store method into that method's error,
// wrapping ErrDamaged: a table damaged while edged runs makes Badger index out of
// range, and that must fail the one call that met it, with the directory named,
// instead of killing the daemon into a crash loop. Defer it first in the method, so
// the method's own deferred unlocks run before it. Panics in Badger's own goroutines
// (compaction, flushes) cannot be caught here; Open checks every table before Badger
// opens them, so those goroutines never meet damage present at start.
func (s *Store) recovered(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s in state in %s: Badger panicked: %s: %w", what, s.where, firstLine(r), ErrDamaged)
	}
}
