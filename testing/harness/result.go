package harness

import (
	"encoding/json"
	"fmt"
)

// Result is the result record (docs/semantics.md, "Result record") as a consumer decodes it.
type Result struct {
	Device   string              `json:"device"`
	Window   string              `json:"window"`
	Key      string              `json:"key"`
	Start    int64               `json:"start"`
	End      int64               `json:"end"`
	Revision int                 `json:"revision"`
	Kind     string              `json:"kind"`
	Values   map[string]*float64 `json:"values"`
	// MergedInto is set on a retract: the session that absorbed this one.
	MergedInto *struct{ Start, End int64 } `json:"merged_into,omitempty"`
	Watermark  int64                       `json:"watermark"`
	EmittedAt  int64                       `json:"emitted_at"`
}

// ID is the upsert key a downstream store uses for a result.
type ID struct {
	Device, Window, Key string
	Start               int64
}

// ID returns the result's upsert key.
func (r Result) ID() ID { return ID{r.Device, r.Window, r.Key, r.Start} }

// ParseResult decodes one result record.
func ParseResult(b []byte) (Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("decoding result %q: %w", b, err)
	}
	return r, nil
}

// Latest applies the consumer rule (docs/semantics.md): upsert by ID keeping the highest
// revision, delete on a retract. It returns what such a store holds at the end.
func Latest(rs []Result) map[ID]Result {
	out := map[ID]Result{}
	for _, r := range rs {
		if cur, ok := out[r.ID()]; !ok || r.Revision > cur.Revision {
			out[r.ID()] = r
		}
	}
	for id, r := range out {
		if r.Kind == "retract" {
			delete(out, id)
		}
	}
	return out
}
