package persist

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// badgerLogger passes Badger's warnings and errors to slog. Its info and debug
// messages (tables opened, memtables flushed, ...) are dropped: on a gateway they are
// noise in the journal, not signals.
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, args ...any)   { b.log(slog.LevelError, f, args) }
func (b badgerLogger) Warningf(f string, args ...any) { b.log(slog.LevelWarn, f, args) }
func (b badgerLogger) Infof(string, ...any)           {}
func (b badgerLogger) Debugf(string, ...any)          {}

func (b badgerLogger) log(level slog.Level, f string, args []any) {
	ctx := context.Background()
	if !b.l.Enabled(ctx, level) {
		return
	}
	b.l.Log(ctx, level, strings.TrimSpace(fmt.Sprintf(f, args...)), "component", "badger")
}
