package sim

// Summary is what a run of the simulator sent, printed as JSON at the end of
// `edged simulate` so tests can compare it with what edged counted.
type Summary struct {
	Seed    uint64        `json:"seed"`
	Start   int64         `json:"start"`
	Total   int           `json:"total"`
	Late    int           `json:"late"`               // readings held back by LateBy
	TooLate int           `json:"too_late,omitempty"` // readings held back by TooLateBy
	Failed  int           `json:"failed,omitempty"`   // publishes the broker refused or never confirmed
	Silent  []string      `json:"silent"`             // sensors that stop halfway
	Sensors []SensorCount `json:"sensors"`            // in sensor order
}

// SensorCount is what one sensor sent.
type SensorCount struct {
	Sensor string `json:"sensor"`
	Sent   int    `json:"sent"`
	Late   int    `json:"late"`
	// TooLate counts the readings held back by TooLateBy.
	TooLate int   `json:"too_late,omitempty"`
	LastTS  int64 `json:"last_ts"` // event time of its latest reading; 0 if none
}

// Tally counts the messages of a feed that were actually sent.
type Tally struct{ s Summary }

// NewTally starts an empty summary for cfg.
func NewTally(cfg Config) *Tally {
	t := &Tally{s: Summary{Seed: cfg.Seed, Start: cfg.Start, Silent: []string{}, Sensors: make([]SensorCount, cfg.Sensors)}}
	for i := range t.s.Sensors {
		t.s.Sensors[i].Sensor = SensorName(i + 1)
		if i >= cfg.Sensors-cfg.Silent {
			t.s.Silent = append(t.s.Silent, SensorName(i+1))
		}
	}
	return t
}

// Add counts one sent message.
func (t *Tally) Add(m *Message) {
	t.s.Total++
	c := &t.s.Sensors[m.Sensor-1]
	c.Sent++
	c.LastTS = max(c.LastTS, m.TS)
	if m.Late {
		t.s.Late++
		c.Late++
	}
	if m.TooLate {
		t.s.TooLate++
		c.TooLate++
	}
}

// Summary returns the counts so far.
func (t *Tally) Summary() Summary {
	s := t.s
	s.Sensors = append([]SensorCount(nil), t.s.Sensors...)
	return s
}
