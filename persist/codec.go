package persist

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/edged/edged/watermark"
)

// Values persist encodes itself start with a version byte, so a later edged can
// read what an earlier one wrote, and a value it cannot read is an error, not a guess.

var (
	// ErrUnknownVersion is wrapped when a value starts with a version this build
	// does not know (written by a newer edged, or corrupted).
	ErrUnknownVersion = errors.New("unknown encoding version")
	// ErrCorrupt is wrapped when a value is truncated or malformed.
	ErrCorrupt = errors.New("corrupted value")
)

// DecodeError is a stored value that could not be decoded; Key names it.
type DecodeError struct {
	Key string // e.g. v/"dev"/"1m"/"s-1"
	Err error  // wraps ErrUnknownVersion or ErrCorrupt
}

func (e *DecodeError) Error() string { return fmt.Sprintf("decoding %s: %v", e.Key, e.Err) }
func (e *DecodeError) Unwrap() error { return e.Err }

const (
	generatorV1    = 1
	generatorV1Len = 1 + 3*8 + 1
	generatorV2    = 2 // v1 and the extrapolation base of an idle stream
	generatorV2Len = generatorV1Len + 2*8

	valveV1 = 1
	// minValveInput is the smallest encoded input: empty name, watermark, flags.
	minValveInput = 1 + 8 + 1

	counterV1  = 1
	counterLen = 1 + 8
)

const (
	flagSeen byte = 1 << iota
	flagIdle
	flagAligned
)

func checkVersion(b []byte, want byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: empty", ErrCorrupt)
	}
	if b[0] != want {
		return fmt.Errorf("%w %d", ErrUnknownVersion, b[0])
	}
	return nil
}

func flag(on bool, f byte) byte {
	if on {
		return f
	}
	return 0
}

func appendGeneratorState(dst []byte, st watermark.GeneratorState) []byte {
	dst = append(dst, generatorV2)
	dst = binary.BigEndian.AppendUint64(dst, uint64(st.Max))
	dst = binary.BigEndian.AppendUint64(dst, uint64(st.LastArrival))
	dst = binary.BigEndian.AppendUint64(dst, uint64(st.Watermark))
	dst = append(dst, flag(st.Seen, flagSeen)|flag(st.Idle, flagIdle))
	dst = binary.BigEndian.AppendUint64(dst, uint64(st.Base))
	return binary.BigEndian.AppendUint64(dst, uint64(st.BaseAt))
}

// decodeGeneratorState reads both versions: a v1 state has no extrapolation base.
func decodeGeneratorState(b []byte) (watermark.GeneratorState, error) {
	want := generatorV2Len
	if len(b) > 0 && b[0] == generatorV1 {
		want = generatorV1Len
	} else if err := checkVersion(b, generatorV2); err != nil {
		return watermark.GeneratorState{}, err
	}
	if len(b) != want {
		return watermark.GeneratorState{}, fmt.Errorf("%w: %d bytes, want %d", ErrCorrupt, len(b), want)
	}
	flags := b[25]
	if flags&^(flagSeen|flagIdle) != 0 {
		return watermark.GeneratorState{}, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, flags)
	}
	st := watermark.GeneratorState{
		Max:         int64(binary.BigEndian.Uint64(b[1:])),
		LastArrival: int64(binary.BigEndian.Uint64(b[9:])),
		Watermark:   int64(binary.BigEndian.Uint64(b[17:])),
		Seen:        flags&flagSeen != 0,
		Idle:        flags&flagIdle != 0,
		Base:        watermark.Min,
	}
	if want == generatorV2Len {
		st.Base = int64(binary.BigEndian.Uint64(b[26:]))
		st.BaseAt = int64(binary.BigEndian.Uint64(b[34:]))
	}
	return st, nil
}

// appendValve encodes a window actor's valve and its operator's watermark; the
// watermark is kept because a valve rebuilt from its inputs can come out lower.
func appendValve(dst []byte, wm int64, inputs []watermark.ValveInput) []byte {
	dst = append(dst, valveV1)
	dst = binary.BigEndian.AppendUint64(dst, uint64(wm))
	dst = binary.AppendUvarint(dst, uint64(len(inputs)))
	for _, in := range inputs {
		dst = binary.AppendUvarint(dst, uint64(len(in.Input)))
		dst = append(dst, in.Input...)
		dst = binary.BigEndian.AppendUint64(dst, uint64(in.Watermark))
		dst = append(dst, flag(in.Idle, flagIdle)|flag(in.Aligned, flagAligned))
	}
	return dst
}

func decodeValve(b []byte) (int64, []watermark.ValveInput, error) {
	if err := checkVersion(b, valveV1); err != nil {
		return 0, nil, err
	}
	if len(b) < 9 {
		return 0, nil, fmt.Errorf("%w: truncated watermark", ErrCorrupt)
	}
	wm := int64(binary.BigEndian.Uint64(b[1:]))
	b = b[9:]
	n, k := binary.Uvarint(b)
	// Bound n by the bytes left so a corrupted count cannot allocate gigabytes.
	if k <= 0 || n > uint64(len(b)-k)/minValveInput {
		return 0, nil, fmt.Errorf("%w: bad input count", ErrCorrupt)
	}
	b = b[k:]
	inputs := make([]watermark.ValveInput, 0, n)
	for i := range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) || uint64(len(b)-k)-l < 9 {
			return 0, nil, fmt.Errorf("%w: input %d truncated", ErrCorrupt, i)
		}
		b = b[k:]
		name := string(b[:l])
		b = b[l:]
		flags := b[8]
		if flags&^(flagIdle|flagAligned) != 0 {
			return 0, nil, fmt.Errorf("%w: input %d has unknown flags %#x", ErrCorrupt, i, flags)
		}
		inputs = append(inputs, watermark.ValveInput{
			Input:     name,
			Watermark: int64(binary.BigEndian.Uint64(b)),
			Idle:      flags&flagIdle != 0,
			Aligned:   flags&flagAligned != 0,
		})
		b = b[9:]
	}
	if len(b) != 0 {
		return 0, nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(b))
	}
	return wm, inputs, nil
}

func appendCounter(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, counterV1), seq)
}

func decodeCounter(b []byte) (uint64, error) {
	if err := checkVersion(b, counterV1); err != nil {
		return 0, err
	}
	if len(b) != counterLen {
		return 0, fmt.Errorf("%w: %d bytes, want %d", ErrCorrupt, len(b), counterLen)
	}
	return binary.BigEndian.Uint64(b[1:]), nil
}
