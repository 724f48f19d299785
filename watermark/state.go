package watermark

// GeneratorState is what a Generator must keep across a restart.
type GeneratorState struct {
	Max         int64 // highest accepted event time; meaningful only when Seen
	LastArrival int64 // processing time of the last accepted record
	Watermark   int64 // last watermark emitted; never goes backwards
	Seen        bool  // a record has been accepted
	Idle        bool
}

// ValveInput is one input of a Valve as persisted.
type ValveInput struct {
	Input     string
	Watermark int64
	Idle      bool
	Aligned   bool
}
