package mqtt

import (
	"errors"
	"math/big"
	"strings"
	"testing"
)

// Run the fuzzers with, for example:
//
//	go test -run '^$' -fuzz FuzzExtract -fuzztime 60s ./mqtt/
//
// Without -fuzz, the seed corpus below runs as an ordinary test.

var fuzzSpecs = []ExtractSpec{
	{Timestamp: "ts", Unit: Millis, KeyField: "sensor", KeySegment: -1, Values: []string{"temp", "hum"}, WatermarkField: "watermark"},
	{Timestamp: "meta.ts", Unit: Seconds, KeySegment: 1, Values: []string{"data.0", "state"}},
	{Timestamp: "ts", Unit: Nanos, KeySegment: -1, Values: []string{"v"}},
	{Timestamp: "ts", Unit: RFC3339, KeyField: "id", KeySegment: -1, Values: []string{"v"}, WatermarkField: "wm"},
}

func FuzzExtract(f *testing.F) {
	seeds := []string{
		`{"sensor":"s-1","ts":1733140000123,"temp":21.5,"hum":40}`,
		`{"sensor":17,"ts":"1733140000123","temp":true,"hum":null}`,
		`{"watermark":1733140005000}`,
		`{"meta":{"ts":1733140000.5},"data":[1,2],"state":"on"}`,
		`{"ts":1733140000123456789,"v":-0.0}`,
		`{"id":"x","ts":"2024-12-02T12:26:40.123456789Z","v":"a\u00e9"}`,
		`{"ts":1e999}`, `{"ts":-1e-999}`, `{"ts":NaN,"temp":Infinity}`,
		`{"ts":"0x10"}`, `[]`, `null`, `"x"`, `{`, ``, `{"a":{"b":{"c":[[[]]]}}}`,
		`{"sensor":"\ud800","ts":1733140000000}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), "sensors/s-1/data", []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, topic string, payload []byte) {
		spec := fuzzSpecs[int(which)%len(fuzzSpecs)]
		e := NewExtractor(spec)
		var r Reading
		for range 2 { // the second pass exercises reused parser and interner state
			err := e.Extract(topic, payload, &r)
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) || de.Reason == "" {
					t.Fatalf("error %v (%T) is not a *DecodeError with a reason", err, err)
				}
				continue
			}
			if !r.HasTS && !r.HasWatermark {
				t.Fatalf("no error, yet neither timestamp nor watermark: %+v", r)
			}
			if r.HasTS && (r.TS < defaultMinTimestamp || r.TS > maxEventTime) {
				t.Fatalf("timestamp %d outside the accepted range", r.TS)
			}
			if r.HasTS && len(r.Values) != len(spec.Values) {
				t.Fatalf("%d values for %d fields", len(r.Values), len(spec.Values))
			}
		}
	})
}

// FuzzScaleDecimal checks the exact decimal scaling against math/big.
func FuzzScaleDecimal(f *testing.F) {
	for _, s := range []string{"0", "1733140000.123", "-1.0005", "1e3", "1733140000123456789", "9223372036854775807", "-0.5e-2", "12E+2"} {
		f.Add(s, int8(3))
		f.Add(s, int8(-6))
	}
	f.Fuzz(func(t *testing.T, raw string, shift int8) {
		sh := int(shift) % 10
		if i := strings.IndexAny(raw, "eE"); i >= 0 && len(strings.TrimLeft(raw[i+1:], "+-")) > 3 {
			t.Skip("exponent too large for the math/big oracle")
		}
		got, st := scaleDecimal([]byte(raw), sh)
		r, ok := new(big.Rat).SetString(raw)
		if !ok || !jsonNumber(raw) {
			if st != decimalSyntax {
				t.Fatalf("scaleDecimal(%q) = %d, %d; want a syntax error", raw, got, st)
			}
			return
		}
		if st == decimalSyntax {
			t.Fatalf("scaleDecimal(%q) reports a syntax error for a JSON number", raw)
		}
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(sh))), nil))
		if sh >= 0 {
			r.Mul(r, scale)
		} else {
			r.Quo(r, scale)
		}
		// floor(r) = the integer quotient rounded toward minus infinity
		fl := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floors for a positive denominator
		if !fl.IsInt64() {
			if st != decimalRange {
				t.Fatalf("scaleDecimal(%q, %d) = %d, %d; want out of range (%s)", raw, sh, got, st, fl)
			}
			return
		}
		if st == decimalRange && fl.Int64() == -1<<63 {
			return // the one value deliberately reported out of range
		}
		if st != decimalOK || got != fl.Int64() {
			t.Fatalf("scaleDecimal(%q, %d) = %d, %d; want %s", raw, sh, got, st, fl)
		}
	})
}

// jsonNumber is a plain reading of the JSON number grammar, as a test oracle.
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && s[start] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
