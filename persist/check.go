package persist

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// ErrDamaged is wrapped by Open when it refuses a state directory: Badger would open
// it as an empty or older store, or crash on it, and edged would go on without state
// it had already acknowledged.
var ErrDamaged = errors.New("opening it would silently lose state that edged had acknowledged")

// ErrNoState is wrapped by a read-only Open of a directory that holds no edged state.
var ErrNoState = errors.New("it holds no edged state (no " + MarkerName + ", no Badger MANIFEST)")

func refuse(dir, format string, args ...any) error {
	return fmt.Errorf("refusing the state in %s: %s: %w", dir, fmt.Sprintf(format, args...), ErrDamaged)
}

// dirFiles is what a state directory holds, by Badger's file kinds.
type dirFiles struct {
	manifest bool
	tables   map[uint64]bool // .sst ids
	wals     []string        // .mem names, oldest first
	vlogs    int
}

func listDir(dir string) (dirFiles, error) {
	f := dirFiles{tables: map[uint64]bool{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return f, fmt.Errorf("listing the state in %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == badger.ManifestFilename:
			f.manifest = true
		case strings.HasSuffix(name, ".sst"):
			if id, ok := table.ParseFileID(name); ok {
				f.tables[id] = true
			}
		case strings.HasSuffix(name, ".mem"):
			f.wals = append(f.wals, name)
		case strings.HasSuffix(name, ".vlog"):
			f.vlogs++
		}
	}
	// Badger names them with zero-padded ids, so name order is id order.
	slices.Sort(f.wals)
	return f, nil
}

// preOpen is what checkBeforeOpen learned for the checks after Badger opens.
type preOpen struct {
	marker    marker
	gen       uint64
	hasMarker bool
	powerCut  bool // the last writer neither closed the store nor ran in this boot
	notClosed bool // the last writer did not close the store (killed, power cut)
}

// checkBeforeOpen looks at the directory before Badger does: Badger deletes table
// files its MANIFEST does not list, truncates a write-ahead log at the first entry
// that does not read back, and panics in its own goroutines on some damaged tables,
// all inside Open and even when read-only. Whatever would lose state is refused here.
func checkBeforeOpen(o Options) (preOpen, error) {
	dir := o.Dir
	var p preOpen
	var err error
	p.marker, p.gen, p.hasMarker, err = readMarker(dir)
	if err != nil {
		return p, refuse(dir, "%v", err)
	}
	p.powerCut = p.hasMarker && !p.marker.Clean && p.marker.Boot != "" && p.marker.Boot != bootID()
	f, err := listDir(dir)
	if err != nil {
		return p, err
	}
	if !f.manifest {
		if p.hasMarker || len(f.tables) > 0 || len(f.wals) > 0 || f.vlogs > 0 {
			return p, refuse(dir, "its Badger MANIFEST is missing while %s, %d table files, %d write-ahead logs and %d value logs remain",
				markerPresence(p.hasMarker), len(f.tables), len(f.wals), f.vlogs)
		}
		if o.ReadOnly {
			return p, fmt.Errorf("cannot read the state in %s: %w", dir, ErrNoState)
		}
		return p, nil // a new store
	}
	listed, err := replayManifest(dir, o)
	if err != nil {
		return p, refuse(dir, "its MANIFEST does not read back: %v", err)
	}
	var missing, unlisted []string
	for id := range listed {
		if !f.tables[id] {
			missing = append(missing, table.IDToFilename(id))
		}
	}
	for id := range f.tables {
		if _, ok := listed[id]; !ok {
			unlisted = append(unlisted, table.IDToFilename(id))
		}
	}
	if len(missing) > 0 {
		return p, refuse(dir, "its MANIFEST lists tables whose files are missing (%s)", fileList(missing))
	}
	// After a crash, tables of an interrupted flush or compaction are legitimately
	// unlisted, and Badger removes them. After a clean close there are none, so an
	// unlisted table means the MANIFEST lost its record.
	if len(unlisted) > 0 && p.marker.Clean {
		return p, refuse(dir, "table files are not in its MANIFEST (%s), so the MANIFEST was truncated or replaced; "+
			"Badger would delete them", fileList(unlisted))
	}
	var seq uint64
	for id, tm := range listed {
		n, err := verifyTable(table.NewFilename(id, dir), tm.Compression, o)
		if err != nil {
			return p, refuse(dir, "%v", err)
		}
		seq = max(seq, n)
	}
	if err := checkWALs(dir, f.wals, seq, &p, o); err != nil {
		return p, err
	}
	// A writable open replays a crashed store's logs into its tables and removes
	// tables an interrupted flush or compaction left; a read-only one replays the
	// logs in memory and leaves every file as it is (badgerOptions). The logs were
	// just checked: what Badger's replay leaves out of each is a torn tail.
	p.notClosed = (p.hasMarker && !p.marker.Clean) || len(unlisted) > 0
	return p, nil
}

// checkWALs refuses write-ahead logs that Badger would cut short, and a store whose
// tables (seq is their highest commit count) and logs together end before the
// commit the marker recorded.
func checkWALs(dir string, wals []string, seq uint64, p *preOpen, o Options) error {
	for i, name := range wals {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("reading the state in %s: %w", dir, err)
		}
		s := scanWAL(data, commitKey)
		newest := i == len(wals)-1
		// A torn last entry was never acknowledged, and checkSeq catches a log that
		// lost commits. A power cut may leave the newest log's last writes half on
		// disk in any order; only the part Badger keeps was acknowledged.
		if s.more && !(newest && p.powerCut) {
			return refuse(dir, "its write-ahead log %s is damaged at offset %d, and Badger would drop everything after it", name, s.kept)
		}
		seq = max(seq, s.seq)
	}
	return p.checkSeq(dir, seq, o)
}

// checkSeq refuses a store that holds fewer commits than the marker recorded. A
// power cut may take the last commits with Process durability, which says so; that
// is logged, not refused.
func (p *preOpen) checkSeq(dir string, seq uint64, o Options) error {
	if !p.hasMarker || seq >= p.marker.Seq {
		return nil
	}
	if p.powerCut && o.Durability == Process {
		o.Logger.Warn("the state lost its last commits in a power cut, as durability: process allows",
			"dir", dir, "commits_lost", p.marker.Seq-seq)
		return nil
	}
	return refuse(dir, "it went backwards: it holds %d commits, but %d were durable in it before (see %s)",
		seq, p.marker.Seq, MarkerName)
}

func markerPresence(has bool) string {
	if has {
		return MarkerName + " says the store existed"
	}
	return "no " + MarkerName + " exists"
}

func fileList(names []string) string {
	slices.Sort(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + ", and " + strconv.Itoa(len(names)-5) + " more"
	}
	return strings.Join(names, ", ")
}

// replayManifest reads the tables the MANIFEST lists, without changing it.
func replayManifest(dir string, o Options) (map[uint64]badger.TableManifest, error) {
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, 0, o.badgerOptions())
	if err != nil {
		return nil, err
	}
	return m.Tables, nil
}

// verifyTable opens a table read-only, checks every block's checksum and returns
// the newest commit count in it (0 if none). Badger would check the table in
// goroutines of its own, where a damaged index panics the process.
func verifyTable(path string, c options.CompressionType, o Options) (seq uint64, err error) {
	name := filepath.Base(path)
	fd, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("table %s: %w", name, err)
	}
	defer fd.Close()
	mf, err := z.OpenMmapFileUsing(fd, 0, false)
	if err != nil {
		return 0, fmt.Errorf("table %s: %w", name, err)
	}
	defer func() {
		if mf.Data != nil { // OpenTable closes (unmaps) a table that fails its checksum
			z.Munmap(mf.Data)
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("table %s is damaged: reading it panics: %v", name, firstLine(r))
		}
	}()
	t, err := table.OpenTable(mf, table.Options{ReadOnly: true, ChkMode: options.OnTableRead, Compression: c,
		BlockSize: o.badgerOptions().BlockSize})
	if err != nil {
		return 0, fmt.Errorf("table %s is damaged: %w", name, err)
	}
	// Never DecrRef the table: at zero references Badger deletes its file.
	it := t.NewIterator(0)
	defer it.Close()
	it.Seek(y.KeyWithTs(commitKey, math.MaxUint64))
	if it.Valid() && bytes.Equal(y.ParseKey(it.Key()), commitKey) {
		if seq, err = decodeCounter(it.Value().Value); err != nil {
			return 0, fmt.Errorf("table %s: the commit count: %w", name, err)
		}
	}
	return seq, nil
}

// firstLine keeps a recovered panic's message to its first non-blank line; Badger
// adds dumps of the table around it.
func firstLine(v any) string {
	for line := range strings.SplitSeq(fmt.Sprint(v), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return "no message"
}
