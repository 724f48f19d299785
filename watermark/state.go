package watermark

// GeneratorState is what a Generator must keep across a restart.
type GeneratorState struct {
	Max         int64 // highest accepted event time; meaningful only when Seen
	LastArrival int64 // processing time of the last accepted record
	Watermark   int64 // last watermark emitted; never goes backwards
	Seen        bool  // a record has been accepted
	Idle        bool

	// While the stream is idle in Advance mode its watermark moves with processing
	// time from Base at BaseAt (Drift), so its owner need not save every move:
	// Drifted recomputes it. Base is Min otherwise.
	Base, BaseAt int64
}

// Drifted returns s with the watermark that checks up to processing time t would
// have reported if nothing but checks had come: a stream idle in Advance mode
// moves on, any other keeps its watermark (a restart starts the idleness
// countdown afresh, see Restore). t is on the clock BaseAt was taken from.
func (s GeneratorState) Drifted(t int64) GeneratorState {
	s.Watermark = Drift{wm: s.Watermark, base: s.Base, baseAt: s.BaseAt, advancing: s.Base != Min}.At(t)
	return s
}

// ValveInput is one input of a Valve as persisted.
type ValveInput struct {
	Input     string
	Watermark int64
	Idle      bool
	Aligned   bool
}
