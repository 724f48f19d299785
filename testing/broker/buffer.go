package broker

import (
	"bytes"
	"sync"
)

// SyncBuffer collects output that other goroutines write while the test reads
// it: a child process's stdout and stderr copied by exec, or a logger's lines.
// It lives here because this package imports only the standard library, so
// every test package can use it without an import cycle.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Len returns how many bytes were written so far.
func (s *SyncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}
