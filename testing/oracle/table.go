package oracle

import (
	"fmt"

	"github.com/edged/edged/windows"
)

// Table is the downstream store of the consumer rule (docs/semantics.md), for one
// window definition of one device: it upserts results by (key, start),
// keeping the highest revision, and deletes the row on a retract. Its rows
// at the end must equal the oracle's final windows (Sim.Final), whatever
// merges, late updates and restarts happened on the way.
type Table struct {
	rows map[tableID]*tableRow
}

type tableID struct {
	key   string
	start int64
}

type tableRow struct {
	rev     int
	end     int64
	values  []windows.NamedValue
	deleted bool // a retract's tombstone: only a higher revision brings the start back
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{rows: map[tableID]*tableRow{}} }

// Apply applies one result. Every result edged emits outranks every earlier one
// with its (key, start), whichever window had the start (a session may take the
// start of one retracted or purged before), so Apply reports a revision that
// does not exceed the row's, a retract of a row never written or already
// retracted.
func (t *Table) Apply(r windows.Result) error {
	id := tableID{key: r.Key, start: r.Window.Start}
	row := t.rows[id]
	switch {
	case row != nil && r.Revision <= row.rev:
		return fmt.Errorf("%s %v revision %d %v does not exceed the stored revision %d", r.Key, r.Window, r.Revision, r.Kind, row.rev)
	case (row == nil || row.deleted) && r.Kind == windows.Retract:
		return fmt.Errorf("%s %v revision %d: a retract of a row never written or already retracted", r.Key, r.Window, r.Revision)
	}
	if row == nil {
		row = &tableRow{}
		t.rows[id] = row
	}
	row.rev, row.end, row.values, row.deleted = r.Revision, r.Window.End, r.Values, r.Kind == windows.Retract
	return nil
}

// Revision returns the revision of key's row for start, retracted or not, and
// whether there is one.
func (t *Table) Revision(key string, start int64) (int, bool) {
	row := t.rows[tableID{key: key, start: start}]
	if row == nil {
		return 0, false
	}
	return row.rev, true
}

// Rows returns the live rows by window.
func (t *Table) Rows() map[windows.Ref][]windows.NamedValue {
	out := map[windows.Ref][]windows.NamedValue{}
	for id, row := range t.rows {
		if !row.deleted {
			out[windows.Ref{Key: id.key, Window: windows.Window{Start: id.start, End: row.end}}] = row.values
		}
	}
	return out
}

// Take removes the rows whose window done accepts, tombstones included, and
// returns the live ones among them: a check that runs for days compares the
// windows that can no longer change and keeps only the others. A result for a
// start taken away starts a new row.
func (t *Table) Take(done func(windows.Ref) bool) map[windows.Ref][]windows.NamedValue {
	out := map[windows.Ref][]windows.NamedValue{}
	for id, row := range t.rows {
		ref := windows.Ref{Key: id.key, Window: windows.Window{Start: id.start, End: row.end}}
		if !done(ref) {
			continue
		}
		if !row.deleted {
			out[ref] = row.values
		}
		delete(t.rows, id)
	}
	return out
}
