package configs

// MaxWindowsPerRecord bounds size/slide of a sliding window. Every record updates
// that many windows, and they all fire and are committed together: sliding 1h/1ms
// makes 3.6 million per reading, gigabytes within seconds and then a stall. Past a
// thousand, a tumbling window of the slide with the aggregation done downstream is
// the better tool.
const MaxWindowsPerRecord = 1000

// WindowsPerRecord is how many windows one record lands in: size/slide rounded up
// for a sliding window, 1 for tumbling and session windows (a record that bridges
// sessions merges them into one).
func (w *Window) WindowsPerRecord() int64 {
	if w.Type != "sliding" || w.Slide <= 0 {
		return 1
	}
	return int64((w.Size + w.Slide - 1) / w.Slide)
}
