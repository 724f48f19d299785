package persist

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/edged/edged/watermark"
)

func TestGeneratorStatesRoundTrip(t *testing.T) {
	for _, st := range []watermark.GeneratorState{
		{},
		{Max: math.MinInt64, LastArrival: -1, Watermark: math.MinInt64, Base: math.MinInt64},
		{Max: 1733140000000, LastArrival: 99, Watermark: 1733139999000, Seen: true, Idle: true, Base: 1733139998000, BaseAt: -5},
		{Seen: true, Base: math.MaxInt64, BaseAt: math.MaxInt64},
	} {
		got, err := decodeGeneratorState(appendGeneratorState(nil, st))
		if err != nil || got != st {
			t.Errorf("round trip of %+v = %+v, %v", st, got, err)
		}
	}
}

// A state saved by an edged before version 2 has no extrapolation base: it
// restores the watermark it saved.
func TestAVersion1GeneratorStateHasNoBase(t *testing.T) {
	v1 := []byte{1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 5, 3}
	want := watermark.GeneratorState{Max: 7, LastArrival: 9, Watermark: 5, Seen: true, Idle: true, Base: watermark.Min}
	if got, err := decodeGeneratorState(v1); err != nil || got != want {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, want)
	}
}

func TestValvesRoundTrip(t *testing.T) {
	for _, in := range [][]watermark.ValveInput{
		nil,
		{{Input: "", Watermark: math.MinInt64}},
		{{Input: "sensors/s-1", Watermark: 5, Idle: true}, {Input: "x\x00y", Watermark: -5, Aligned: true}},
	} {
		wm, got, err := decodeValve(appendValve(nil, -7, in))
		if err != nil || wm != -7 || len(got) != len(in) || (len(in) > 0 && !reflect.DeepEqual(got, in)) {
			t.Errorf("round trip of %+v = %d %+v, %v", in, wm, got, err)
		}
	}
}

func TestDecodersRejectUnknownVersionsAndDamagedValues(t *testing.T) {
	gen := appendGeneratorState(nil, watermark.GeneratorState{Seen: true})
	valve := appendValve(nil, 1, []watermark.ValveInput{{Input: "abc", Watermark: 1}})
	decodeGen := func(b []byte) error { _, err := decodeGeneratorState(b); return err }
	decodeV := func(b []byte) error { _, _, err := decodeValve(b); return err }
	decodeC := func(b []byte) error { _, err := decodeCounter(b); return err }
	tests := []struct {
		name   string
		decode func([]byte) error
		in     []byte
		want   error
	}{
		{"empty generator state", decodeGen, nil, ErrCorrupt},
		{"generator state of version 3", decodeGen, append([]byte{3}, gen[1:]...), ErrUnknownVersion},
		{"truncated generator state", decodeGen, gen[:10], ErrCorrupt},
		{"version 2 generator state of version 1's length", decodeGen, gen[:26], ErrCorrupt},
		{"version 1 generator state of version 2's length", decodeGen, append([]byte{1}, gen[1:]...), ErrCorrupt},
		{"generator state with unknown flags", decodeGen, append(append(gen[:25:25], 0x80), gen[26:]...), ErrCorrupt},
		{"valve of version 9", decodeV, append([]byte{9}, valve[1:]...), ErrUnknownVersion},
		{"truncated valve", decodeV, valve[:len(valve)-1], ErrCorrupt},
		{"valve with a trailing byte", decodeV, append(valve, 0), ErrCorrupt},
		{"valve claiming a billion inputs", decodeV, []byte{1, 0x80, 0x94, 0xeb, 0xdc, 0x03}, ErrCorrupt},
		{"valve input with unknown flags", decodeV, append(valve[:len(valve)-1:len(valve)-1], 0x10), ErrCorrupt},
		{"counter of version 0", decodeC, make([]byte, 9), ErrUnknownVersion},
		{"truncated counter", decodeC, []byte{1, 2}, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.decode(tt.in); !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func FuzzDecodeGeneratorState(f *testing.F) {
	f.Add(appendGeneratorState(nil, watermark.GeneratorState{Max: 7, Seen: true}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodeGeneratorState(b)
		if err != nil {
			return
		}
		// A version 1 state is written back as version 2.
		if got := appendGeneratorState(nil, st); string(got) != string(b) && b[0] != 1 {
			t.Fatalf("decoded %x as %+v, which encodes as %x", b, st, got)
		}
		if again, err := decodeGeneratorState(appendGeneratorState(nil, st)); err != nil || again != st {
			t.Fatalf("decoded %x as %+v; re-encoding decodes as %+v, %v", b, st, again, err)
		}
	})
}

func FuzzDecodeValve(f *testing.F) {
	f.Add(appendValve(nil, 3, []watermark.ValveInput{{Input: "a", Watermark: 3, Idle: true}}))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		wm, in, err := decodeValve(b)
		if err != nil {
			return
		}
		wm2, again, err := decodeValve(appendValve(nil, wm, in))
		if err != nil || wm2 != wm || len(again) != len(in) || (len(in) > 0 && !reflect.DeepEqual(again, in)) {
			t.Fatalf("decoded %x as %+v; re-encoding decodes as %+v, %v", b, in, again, err)
		}
	})
}
