package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// RowKey identifies a window's row: results upsert by it.
type RowKey struct {
	Device string `json:"device"`
	Window string `json:"window"`
	Key    string `json:"key"`
	Start  int64  `json:"start"`
}

// Row is the latest revision of a window. A retracted row stays as a tombstone,
// so an older revision that arrives later cannot bring it back.
type Row struct {
	Revision int                 `json:"revision"`
	Kind     string              `json:"kind"`
	End      int64               `json:"end"`
	Values   map[string]*float64 `json:"values"` // null for an empty aggregate
}

// Table is what the cloud keeps of a fleet's records: the final result rows and
// each late record once.
type Table struct {
	rows map[RowKey]Row
	late map[string]json.RawMessage // by record id
}

func NewTable() *Table {
	return &Table{rows: map[RowKey]Row{}, late: map[string]json.RawMessage{}}
}

// record holds the fields of a result or a late record that Apply reads.
type record struct {
	ID       string              `json:"id"`
	Device   string              `json:"device"`
	Window   string              `json:"window"`
	Key      string              `json:"key"`
	Start    int64               `json:"start"`
	End      int64               `json:"end"`
	Revision *int                `json:"revision"` // only results have one
	Kind     string              `json:"kind"`
	Values   map[string]*float64 `json:"values"`
}

// Apply takes one record as edged sends it upstream. A result replaces its row
// only with a higher revision, and a retract deletes the row; a late record is
// kept once by its id. Applying a record twice changes nothing.
func (t *Table) Apply(data []byte) error {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("decoding a record: %w", err)
	}
	if r.Revision == nil {
		if r.ID == "" {
			return fmt.Errorf("a late record without an id: %s", data)
		}
		t.late[r.ID] = append(json.RawMessage(nil), data...)
		return nil
	}
	k := RowKey{r.Device, r.Window, r.Key, r.Start}
	if old, ok := t.rows[k]; ok && old.Revision >= *r.Revision {
		return nil // a duplicate, or older than what the row holds
	}
	t.rows[k] = Row{Revision: *r.Revision, Kind: r.Kind, End: r.End, Values: r.Values}
	return nil
}

// Rows lists the live rows (retracted ones left out) in key order.
func (t *Table) Rows() []RowKey {
	var keys []RowKey
	for k, r := range t.rows {
		if r.Kind != "retract" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b RowKey) int {
		return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Window, b.Window),
			cmp.Compare(a.Key, b.Key), cmp.Compare(a.Start, b.Start))
	})
	return keys
}

// Row returns a row, live or retracted.
func (t *Table) Row(k RowKey) (Row, bool) {
	r, ok := t.rows[k]
	return r, ok
}

// LateIDs lists the ids of the late records kept, sorted.
func (t *Table) LateIDs() []string { return slices.Sorted(maps.Keys(t.late)) }
