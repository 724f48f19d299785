package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// MarkerName is edged's own record beside Badger's files of how far the store got:
// the commit sequence last known durable in it, and whether Badger was closed
// cleanly. Badger takes a store that lost its MANIFEST or the tail of its
// write-ahead log for an empty or older one; comparing it with this record is how
// Open notices.
const MarkerName = "edged-state"

// marker is one record of the marker file.
type marker struct {
	Seq   uint64 // commits the store held when this was written
	Clean bool   // written by Close after Badger closed
	Boot  string // the kernel's boot id when written ("" where there is none)
}

// The file holds two fixed-size slots, 4 KiB apart so they never share a disk block,
// each with a generation and a checksum. Writes alternate between them in place: a
// torn write spoils one slot and the other still holds the previous record. Writing
// in place also spares flash a new inode and a directory update per commit, which
// the usual temp-file-and-rename would cost.
const (
	markerSlotSize = 128
	markerSlotGap  = 4096
	markerMagic    = "edgedst1"
	markerBootMax  = 64
)

// markerFileSize is the file's size: both slots.
const markerFileSize = markerSlotGap + markerSlotSize

// markerFile is the open marker file of a writable store. It is written through a
// shared mapping, as Badger writes its write-ahead log: a commit then makes no
// system call for it, which would wake Go's monitor thread (quickcalls_linux.go).
// The page cache holds the same bytes a write(2) would have put there, so a killed
// process leaves the same file, and fsync writes the mapped pages out.
type markerFile struct {
	f    *os.File
	m    []byte // the file, mapped
	gen  uint64 // generation of the last record written
	sync bool   // fsync every write (Power durability)
}

// readMarker reads the newest intact record of the marker file in dir. ok is false
// when the file does not exist.
func readMarker(dir string) (m marker, gen uint64, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if errors.Is(err, os.ErrNotExist) {
		return marker{}, 0, false, nil
	}
	if err != nil {
		return marker{}, 0, false, fmt.Errorf("reading %s: %w", MarkerName, err)
	}
	found := false
	for _, off := range []int{0, markerSlotGap} {
		if off+markerSlotSize > len(data) {
			continue
		}
		sm, sgen, good := decodeMarker(data[off : off+markerSlotSize])
		if good && (!found || sgen > gen) {
			m, gen, found = sm, sgen, true
		}
	}
	if !found {
		return marker{}, 0, true, fmt.Errorf("%s holds no intact record (%d bytes)", MarkerName, len(data))
	}
	return m, gen, true, nil
}

// openMarker opens (creating if needed) the marker file of dir for writing; gen is
// the generation readMarker returned.
func openMarker(dir string, gen uint64, sync bool) (*markerFile, error) {
	path := filepath.Join(dir, MarkerName)
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		// A new file must survive a power cut as a name too, or the next start would
		// take the store for one that never had a marker.
		if err := syncDir(dir); err != nil {
			f.Close()
			return nil, err
		}
	}
	m, err := mapMarker(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	return &markerFile{f: f, m: m, gen: gen, sync: sync}, nil
}

// mapMarker maps f, first growing it to hold both slots. A shorter file holds no
// record yet (the first write goes to the second slot), so the zeros it gains are
// no record either.
func mapMarker(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < markerFileSize {
		if err := f.Truncate(markerFileSize); err != nil {
			return nil, err
		}
	}
	return unix.Mmap(int(f.Fd()), 0, markerFileSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

// write records m in the slot not holding the newest record. force fsyncs even
// without Power durability (at open and close, where it is rare and matters).
func (mf *markerFile) write(m marker, force bool) error {
	if mf.m == nil {
		return fmt.Errorf("writing %s: %w", mf.f.Name(), os.ErrClosed)
	}
	mf.gen++
	off := int(mf.gen%2) * markerSlotGap
	copy(mf.m[off:off+markerSlotSize], encodeMarker(m, mf.gen))
	if mf.sync || force {
		if err := mf.f.Sync(); err != nil {
			return fmt.Errorf("syncing %s: %w", mf.f.Name(), err)
		}
	}
	return nil
}

// close unmaps and closes the file; a write after it fails as a closed file's would.
func (mf *markerFile) close() error {
	if mf.m == nil {
		return mf.f.Close() // closed already: the file says so
	}
	err := unix.Munmap(mf.m)
	mf.m = nil
	if cerr := mf.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Slot layout: magic, generation, seq, clean flag, boot id length, boot id, and a
// CRC-32C of everything before it in the last four bytes.
func encodeMarker(m marker, gen uint64) []byte {
	b := make([]byte, markerSlotSize)
	copy(b, markerMagic)
	binary.BigEndian.PutUint64(b[8:], gen)
	binary.BigEndian.PutUint64(b[16:], m.Seq)
	if m.Clean {
		b[24] = 1
	}
	boot := m.Boot[:min(len(m.Boot), markerBootMax)]
	b[25] = byte(len(boot))
	copy(b[26:], boot)
	binary.BigEndian.PutUint32(b[markerSlotSize-4:], crc32.Checksum(b[:markerSlotSize-4], castagnoli))
	return b
}

func decodeMarker(b []byte) (m marker, gen uint64, ok bool) {
	if !bytes.Equal(b[:8], []byte(markerMagic)) ||
		binary.BigEndian.Uint32(b[markerSlotSize-4:]) != crc32.Checksum(b[:markerSlotSize-4], castagnoli) ||
		b[25] > markerBootMax || b[24] > 1 {
		return marker{}, 0, false
	}
	m = marker{Seq: binary.BigEndian.Uint64(b[16:]), Clean: b[24] == 1, Boot: string(b[26 : 26+int(b[25])])}
	return m, binary.BigEndian.Uint64(b[8:]), true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// bootID identifies the running kernel's boot, so Open can tell a store left by a
// killed edged (same boot) from one left by a power cut (a new boot).
func bootID() string {
	f, err := os.Open("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, markerBootMax))
	return strings.TrimSpace(string(b))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
