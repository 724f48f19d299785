package persist

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unreachable is a reserve no disk can satisfy: the disk is always "nearly full".
const unreachable = 1 << 62

func TestADiskBelowTheReserveRefusesCommitsUntilThereIsRoom(t *testing.T) {
	s := openStore(t, Options{})
	s.sealer.close() // it reads the reserve this test changes
	b := s.NewBatch()
	b.PutMark("dev", "w", "k", 42)

	s.disk.min = unreachable
	err := s.Commit(b)
	if !errors.Is(err, ErrDiskLow) || !strings.Contains(err.Error(), "limits.min_free_disk") {
		t.Fatalf("Commit below the reserve = %v, want ErrDiskLow naming limits.min_free_disk", err)
	}
	if err := s.DiskLow(); !errors.Is(err, ErrDiskLow) || !strings.Contains(err.Error(), s.where) {
		t.Errorf("DiskLow() = %v, want ErrDiskLow naming %s", err, s.where)
	}
	if seen, _ := s.HasMark("dev", "w", "k", 42); seen {
		t.Fatal("a refused commit wrote its mark")
	}

	s.disk.min = 1 // room again: the same batch commits
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit once there is room: %v", err)
	}
	if seen, _ := s.HasMark("dev", "w", "k", 42); !seen {
		t.Error("the retried commit did not write its mark")
	}
	if err := s.DiskLow(); err != nil {
		t.Errorf("DiskLow() with room = %v", err)
	}
}

func TestOpenRefusesADiskBelowTheReserveAndWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	_, err := Open(Options{Dir: dir, MinFreeDisk: unreachable})
	if !errors.Is(err, ErrDiskLow) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Open = %v, want ErrDiskLow naming %s", err, dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created %s on a full disk (stat: %v)", dir, err)
	}
	if _, err := Open(Options{Durability: Memory, MinFreeDisk: unreachable}); err != nil {
		t.Errorf("a memory store has no disk to check, got %v", err)
	}
}
