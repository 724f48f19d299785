package windows

// Kind says why a result was emitted.
type Kind uint8

const (
	// OnTime: the watermark passed the window's end.
	OnTime Kind = iota
	// LateUpdate: a late record (within the allowed lateness) changed a
	// window that had already fired, or created one whose end had passed.
	LateUpdate
	// Retract: a session merge absorbed a window that had already emitted;
	// a downstream table deletes its row. Values is nil and MergedInto
	// names the session that now holds its records.
	Retract
	// Early: a processing-time early firing of a window that has not fired
	// on time yet (Operator.FireEarly). Its revisions precede the on-time one.
	Early
)

func (k Kind) String() string {
	switch k {
	case LateUpdate:
		return "late_update"
	case Retract:
		return "retract"
	case Early:
		return "early"
	}
	return "on_time"
}

// NamedValue is one aggregate result.
type NamedValue struct {
	Name  string
	Value float64 // NaN when the aggregate saw no value (the sink writes null)
}

// Result is one firing of a window. Revision counts the window's earlier
// firings (0 for the first), so downstream stores can upsert by
// (window, key, start), keep the highest revision and delete on Retract.
// A merged session's next revision is the highest next revision among all
// the windows it absorbed, whichever of them it kept the state of, and past
// every earlier row of its start if it took the start of a session that is
// gone (tombs.go); an absorbed window whose start differs from the merged
// one's and that has emitted gets a Retract with its own next revision, ahead
// of the merged window's results in the same Output.
type Result struct {
	Key        string
	Window     Window
	Revision   int
	Kind       Kind
	Watermark  int64        // the operator's watermark when it fired
	Values     []NamedValue // in Aggregates.Names() order; nil for Retract
	MergedInto Window       // Retract only: the session that absorbed Window
}

// Late is a record whose windows were all past cleanup and whose event time
// plus the allowed lateness was at or behind the watermark: it goes to the
// late output (upstream) instead of a window.
type Late struct {
	Key       string
	TS        int64
	Watermark int64
	Missed    []Window // the windows it would have belonged to
}

// Ref names one window of one key.
type Ref struct {
	Key    string
	Window Window
}

// Output collects what the operator produced; calls append to it until the
// caller Resets it. To persist, delete every Ref in Purged, then for every
// Ref in Updated, in order, store Operator.AppendState if it reports the
// window (or tomb) still exists. (A Ref in both lists was a window purged
// that left a tomb; a merged session can keep the start of a window it
// absorbed, so deleting first matters to stores keyed by start.)
// No Ref stays in Updated once it is purged for good, so a caller may also
// keep only the last word per window across outputs, purged or updated.
// Updated may name a window more than once.
type Output struct {
	Results []Result
	Late    []Late
	Dropped int   // records too late for any window yet not late enough for the late output
	Updated []Ref // windows whose persisted form changed (added to, fired, merged into), tombs left
	Purged  []Ref // windows that no longer exist (purged, merged away), tombs gone

	// Scratch of OnRecord's, here rather than in the Operator: a caller reuses one
	// Output across its operators, while a gateway has an operator per key.
	assigned []Window
	touched  []*windowState
}

// Reset empties the output, keeping its capacity.
func (o *Output) Reset() {
	clear(o.Results)
	clear(o.Late)
	clear(o.Updated)
	clear(o.Purged)
	o.Results, o.Late, o.Updated, o.Purged = o.Results[:0], o.Late[:0], o.Updated[:0], o.Purged[:0]
	o.Dropped = 0
}

// recentUpdates is how far back markUpdated looks for a duplicate: enough
// for the windows one record touches in common sliding configurations.
const recentUpdates = 8

func (o *Output) markUpdated(key string, w Window) {
	for i := len(o.Updated) - 1; i >= 0 && i >= len(o.Updated)-recentUpdates; i-- {
		if u := &o.Updated[i]; u.Window == w && u.Key == key {
			return
		}
	}
	o.Updated = append(o.Updated, Ref{Key: key, Window: w})
}

// Verdict is what OnRecord did with a record.
type Verdict uint8

const (
	// Applied: the record was added to at least one window.
	Applied Verdict = iota
	// LateOutput: the record went to Output.Late. (The name Late is taken
	// by the late record type.)
	LateOutput
	// Dropped: the record was counted in Output.Dropped.
	Dropped
)

func (v Verdict) String() string {
	switch v {
	case Applied:
		return "applied"
	case LateOutput:
		return "late_output"
	default:
		return "dropped"
	}
}
