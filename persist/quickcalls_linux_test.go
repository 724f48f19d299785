package persist

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestTheReserveOnALocalDiskIsCheckedRaw checks that a reserve on a local
// filesystem (the test's temporary directory) uses the raw statfs, which tells the
// runtime nothing, and that it finds what the ordinary call finds.
func TestTheReserveOnALocalDiskIsCheckedRaw(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if !localMagic[uint32(st.Type)] {
		t.Skipf("%s is on a filesystem (f_type %#x) this test does not know as local", dir, uint32(st.Type))
	}
	r := newDiskReserve(dir, 1)
	if r.quick == nil {
		t.Fatalf("the reserve on %s makes ordinary calls, want raw ones", dir)
	}
	raw, known, err := r.free()
	if err != nil || !known {
		t.Fatalf("raw free = %d, %v, %v", raw, known, err)
	}
	plain, _, err := freeBytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Other tests write meanwhile: the two calls agree to within what they may write.
	if diff := max(raw, plain) - min(raw, plain); diff > 256<<20 {
		t.Errorf("raw statfs says %d bytes free, the ordinary one %d", raw, plain)
	}
	if err := newDiskReserve(dir, ^uint64(0)).check(); err == nil {
		t.Error("a reserve of every byte passed the raw check")
	}
}

// TestAReserveOnAnUnknownFilesystemMakesOrdinaryCalls checks that a path on a
// filesystem not known to be local (procfs here, as a network one would be) gets
// the ordinary statfs, which may wait.
func TestAReserveOnAnUnknownFilesystemMakesOrdinaryCalls(t *testing.T) {
	if r := newDiskReserve("/proc", 1); r.quick != nil {
		t.Error("the reserve on /proc makes raw calls")
	}
}
