package actors

import (
	"log/slog"
)

// burstLog logs the first occurrence of a problem and then at most once per interval
// of processing time with how many were suppressed, so a flood of bad payloads
// cannot flood the log.
type burstLog struct {
	every      int64 // ms
	next       int64
	suppressed int
}

func (b *burstLog) log(l *slog.Logger, now int64, msg string, attrs ...any) {
	if now < b.next {
		b.suppressed++
		return
	}
	if b.suppressed > 0 {
		attrs = append(attrs, "suppressed_since_last", b.suppressed)
	}
	l.Warn(msg, attrs...)
	b.suppressed = 0
	b.next = now + b.every
}
