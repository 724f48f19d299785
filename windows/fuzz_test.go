package windows

import (
	"testing"
)

// Run a decoder fuzz target with, for example:
//
//	go test ./windows -run '^$' -fuzz FuzzDecodeAccumulator -fuzztime 30s
//
// The seed corpora below run as ordinary tests.

func fuzzSeeds(f *testing.F, a *Aggregates) {
	f.Helper()
	rs := []Record{
		{TS: 3, Values: []Value{NumberValue(2.5), StringValue("a")}},
		{TS: -7, Values: []Value{NumberValue(-1e6), StringValue("b")}},
		{TS: 3, Values: []Value{{}, NumberValue(4)}},
		{TS: 9, Values: []Value{NumberValue(0), {}}},
	}
	for n := range len(rs) + 1 {
		acc := accumulate(a, rs[:n], 0)
		enc := acc.appendBinary(a, nil)
		f.Add(enc)
		f.Add(enc[:len(enc)/2])
		flipped := append([]byte(nil), enc...)
		flipped[len(flipped)/3] ^= 0xff
		f.Add(flipped)
	}
	f.Add([]byte{})
	f.Add([]byte{accumulatorVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
}

func FuzzDecodeAccumulator(f *testing.F) {
	a := mustParse(f, everyAggregate...)
	fuzzSeeds(f, a)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := reader{b: data}
		acc, err := a.decodeAccumulator(&r)
		if err != nil {
			return
		}
		// Whatever decoded must be usable: results, more records, re-encoding.
		acc.results(a, nil)
		acc.add(a, &Record{TS: 1, Values: []Value{NumberValue(1), StringValue("z")}}, acc.maxSeq()+1)
		other := a.newAccumulator()
		other.merge(a, &acc)
		r2 := reader{b: acc.appendBinary(a, nil)}
		if _, err := a.decodeAccumulator(&r2); err != nil {
			t.Fatalf("re-encoding of decoded state does not decode: %v", err)
		}
	})
}

func FuzzRestore(f *testing.F) {
	a := mustParse(f, everyAggregate...)
	cfg := OperatorConfig{Assigner: Tumbling(10, 0), AllowedLateness: 5, Aggregates: a}
	op := NewOperator(cfg)
	var out Output
	op.OnRecord("k", Record{TS: 3, Values: []Value{NumberValue(1), StringValue("a")}}, &out)
	op.Advance(9, &out)
	op.OnRecord("k", Record{TS: 4, Values: []Value{NumberValue(2), StringValue("b")}}, &out)
	state, _ := op.AppendState(nil, "k", Window{Start: 0, End: 10})
	f.Add(state)
	f.Add(state[:len(state)-1])
	f.Add([]byte{stateVersion, 0x80})
	fuzzSeeds(f, a)
	f.Fuzz(func(t *testing.T, data []byte) {
		op := NewOperator(cfg)
		w := Window{Start: 0, End: 10}
		if err := op.Restore("k", w, data); err != nil {
			return
		}
		var out Output
		op.SetWatermark(9)
		op.OnRecord("k", Record{TS: 5, Values: []Value{NumberValue(3), StringValue("c")}}, &out)
		op.Advance(20, &out)
		if _, ok := op.AppendState(nil, "k", w); ok {
			t.Fatal("window survived its cleanup time")
		}
	})
}
