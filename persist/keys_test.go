package persist

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

func TestEncodedNamesSortLikeTheNamesAndNeverPrefixEachOther(t *testing.T) {
	names := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x01", "a", "a\x00", "a\x00b", "a\x01", "ab", "b", "\xff", "\xff\x00"}
	for i, a := range names {
		ka := windowKey(nil, WindowKey{Device: a, Window: "w", Key: "k", Start: 5})
		r := keyReader{b: ka[1:]}
		if got := r.seg(); got != a || r.err != nil {
			t.Errorf("device %q decoded as %q (%v)", a, got, r.err)
		}
		for j, b := range names {
			kb := windowKey(nil, WindowKey{Device: b, Window: "w", Key: "k", Start: 5})
			if c := bytes.Compare(ka, kb); c != cmpInt(i, j) {
				t.Errorf("keys of devices %q and %q compare %d, names compare %d", a, b, c, cmpInt(i, j))
			}
			if i != j && bytes.HasPrefix(kb, devicePrefix(tagWindow, a)) {
				t.Errorf("a key of device %q starts with the prefix of device %q", b, a)
			}
		}
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestWindowStartsSortNumerically(t *testing.T) {
	starts := []int64{math.MinInt64, -60000, -1, 0, 1, 60000, math.MaxInt64}
	var keys [][]byte
	for _, s := range starts {
		keys = append(keys, windowKey(nil, WindowKey{Device: "d", Window: "w", Key: "k", Start: s}))
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		t.Error("window keys are not sorted by start")
	}
	for i, k := range keys {
		r := keyReader{b: k[1:]}
		r.seg()
		r.seg()
		r.seg()
		if got := r.start(); got != starts[i] || r.done() != nil {
			t.Errorf("start %d decoded as %d (%v)", starts[i], got, r.done())
		}
	}
}

func TestDescribeKeyShowsNamesOrSaysMalformed(t *testing.T) {
	tests := []struct {
		key  []byte
		want string
	}{
		{windowKey(nil, WindowKey{Device: "dev", Window: "1m", Key: "s-1", Start: -5}), `w/"dev"/"1m"/"s-1"/-5`},
		{valveKey(nil, "dev", "1m", "s\x00"), `v/"dev"/"1m"/"s\x00"`},
		{outboxKey(nil, "late", 7), `o/"late"/7`},
		{[]byte("v\x00\x02"), `malformed key 760002`},
		{[]byte("z"), `malformed key 7a`},
		{nil, "empty key"},
	}
	for _, tt := range tests {
		if got := describeKey(tt.key); got != tt.want {
			t.Errorf("describeKey(%q) = %s, want %s", tt.key, got, tt.want)
		}
	}
}

func FuzzKeyReader(f *testing.F) {
	f.Add([]byte("dev\x00\x01win\x00\xff\x00\x01"))
	f.Add([]byte("\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := keyReader{b: b}
		s := r.seg()
		if r.err != nil {
			return
		}
		if enc := appendSeg(nil, s); !bytes.Equal(enc, b[:len(b)-len(r.b)]) {
			t.Fatalf("segment %q re-encodes as %x, read from %x", s, enc, b)
		}
		describeKey(append([]byte{tagMark}, b...))
	})
}
