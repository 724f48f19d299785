package status

// The oldest open window and the next firing of each window definition come from
// the window actors, through the daemon: /status asks for them when it is read,
// so nothing is computed for a status page nobody looks at.

// WindowRef is one window of one key; times in ms.
type WindowRef struct {
	Key   string `json:"key"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

// NextFiring is the window of a definition that fires first: of the windows its
// live keys hold that have not fired, the one that ends first.
type NextFiring struct {
	WindowRef
	// FiresAt is the watermark it waits for: its max timestamp, end - 1.
	FiresAt int64 `json:"fires_at_watermark"`
	// KeyWatermark is its key's combined watermark now; null when the key did
	// not answer in time, or before its first watermark.
	KeyWatermark *int64 `json:"key_watermark"`
}

// WindowSummary is what the daemon tells /status of one window definition.
type WindowSummary struct {
	Device, Window string
	OldestOpen     *WindowRef
	NextFiring     *NextFiring
}

// SetWindows gives the sampler where /status finds each window definition's
// oldest open window and next firing; f is called at each read of /status.
func (s *Sampler) SetWindows(f func() []WindowSummary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.windows = f
}

// addSummaries puts each summary in its definition's row.
func addSummaries(rows []WindowStatus, summaries []WindowSummary) {
	for _, x := range summaries {
		for i := range rows {
			if r := &rows[i]; r.Device == x.Device && r.Window == x.Window {
				r.OldestOpen, r.NextFiring = x.OldestOpen, x.NextFiring
			}
		}
	}
}
