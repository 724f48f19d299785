package persist

import "fmt"

// Durability says which failure a committed Batch survives.
type Durability uint8

const (
	// Process survives a crash of edged: Badger's write-ahead log is in the page
	// cache when Commit returns, but a power cut may lose the last commits.
	Process Durability = iota
	// Power fsyncs every commit before Commit returns, so it survives power loss.
	Power
	// Memory keeps everything in RAM (Badger InMemory); for tests and benchmarks.
	Memory
)

// String returns the name ParseDurability accepts.
func (d Durability) String() string {
	switch d {
	case Process:
		return "process"
	case Power:
		return "power"
	case Memory:
		return "memory"
	}
	return fmt.Sprintf("durability(%d)", uint8(d))
}

// ParseDurability reads "process", "power" or "memory".
func ParseDurability(s string) (Durability, error) {
	for _, d := range []Durability{Process, Power, Memory} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("unknown durability %q: want process, power or memory", s)
}
