package persist

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger's OpenTable closes a table that fails its checksum, and verifyTable, which
// mapped it, unmapped it again afterwards: a second munmap of the same range, which
// removes whatever the runtime or Badger had mapped there since (a SIGSEGV seen once
// in the damaged-store e2e test). A closed MmapFile forgets its mapping so its owner
// can tell.
func TestAClosedMappingIsForgotten(t *testing.T) {
	mf, err := z.OpenMmapFile(filepath.Join(t.TempDir(), "f"), os.O_CREATE|os.O_RDWR, 1<<16)
	if err != nil && err != z.NewFile {
		t.Fatal(err)
	}
	if err := mf.Close(-1); err != nil {
		t.Fatal(err)
	}
	if mf.Data != nil {
		t.Fatalf("after Close the file still holds its %d-byte mapping; its owner would unmap it again", len(mf.Data))
	}
}
