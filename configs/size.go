package configs

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	factor int64
}{
	// Longest suffixes first so that "MiB" is not read as "B".
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

// parseSize reads a byte count: plain digits, or a whole number followed by
// B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64/factor || n < math.MinInt64/factor {
		return 0, errors.New("size overflows 64 bits")
	}
	return n * factor, nil
}
