package persist

import (
	"errors"
	"strings"
	"testing"
)

// openStore opens a store that is closed when the test ends.
func openStore(t testing.TB, o Options) *Store {
	t.Helper()
	if o.Dir == "" && o.Durability != Memory {
		o.Dir = t.TempDir()
	}
	s, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// reopen closes s and opens its directory again.
func reopen(t testing.TB, s *Store, o Options) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	o.Dir = s.where
	return openStore(t, o)
}

func TestParseDurabilityReadsEveryNameAndRejectsOthers(t *testing.T) {
	tests := []struct {
		in      string
		want    Durability
		wantErr bool
	}{
		{"process", Process, false},
		{"power", Power, false},
		{"memory", Memory, false},
		{"Power", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDurability(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDurability(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
}

func TestOpeningALockedDirectoryNamesItAndTheOtherProcess(t *testing.T) {
	dir := t.TempDir()
	openStore(t, Options{Dir: dir})
	s, err := Open(Options{Dir: dir})
	if err == nil {
		s.Close()
		t.Fatal("second Open of the same directory succeeded")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) ||
		!strings.Contains(err.Error(), "another edged process holds it") {
		t.Errorf("error = %q; want it to wrap ErrLocked and name %s", err, dir)
	}
}

func TestOpenWithoutADirectoryFailsUnlessInMemory(t *testing.T) {
	if _, err := Open(Options{}); err == nil {
		t.Error("Open with no directory succeeded")
	}
	openStore(t, Options{Durability: Memory})
}

func TestEveryDurabilityOpensAndCommits(t *testing.T) {
	for _, d := range []Durability{Process, Power, Memory} {
		t.Run(d.String(), func(t *testing.T) {
			s := openStore(t, Options{Durability: d})
			b := s.NewBatch()
			b.PutWindowDef("dev", "1m", []byte("def"))
			if err := s.Commit(b); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			s.RunGC()
			if lsm, vlog := s.Size(); lsm < 0 || vlog < 0 {
				t.Errorf("Size() = %d, %d", lsm, vlog)
			}
		})
	}
}
