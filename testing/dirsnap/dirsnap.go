// Package dirsnap snapshots a directory tree (every file's content, size, mode and
// modification time, and each directory's, whose time changes when an entry is
// created or removed) so that a test can hold a read-only tool to changing nothing.
// It imports only the standard library.
package dirsnap

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// File is what a snapshot keeps of one file or directory.
type File struct {
	Sum     [32]byte // SHA-256 of the content; zero for a directory
	Size    int64
	Mode    fs.FileMode
	ModTime time.Time
}

// Snapshot is the state of a tree, by path.
type Snapshot map[string]File

// Take snapshots the tree at dir.
func Take(t testing.TB, dir string) Snapshot {
	t.Helper()
	s := Snapshot{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		f := File{Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.Sum = sha256.Sum256(b)
		}
		s[p] = f
		return nil
	})
	if err != nil {
		t.Fatalf("snapshotting %s: %v", dir, err)
	}
	return s
}

// Diff describes every path that after removed, added or changed, in path order.
func (s Snapshot) Diff(after Snapshot) []string {
	var out []string
	for p, b := range s {
		switch a, ok := after[p]; {
		case !ok:
			out = append(out, p+" was removed")
		case a != b:
			out = append(out, fmt.Sprintf("%s changed: content same %v, size %d -> %d, mode %v -> %v, mtime %v -> %v",
				p, a.Sum == b.Sum, b.Size, a.Size, b.Mode, a.Mode, b.ModTime, a.ModTime))
		}
	}
	for p := range after {
		if _, ok := s[p]; !ok {
			out = append(out, p+" was created")
		}
	}
	slices.Sort(out)
	return out
}

// Unchanged reports each difference between s and after as a test error.
func (s Snapshot) Unchanged(t testing.TB, after Snapshot) {
	t.Helper()
	for _, d := range s.Diff(after) {
		t.Error(d)
	}
}
