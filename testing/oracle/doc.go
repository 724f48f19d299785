// Package oracle is the reference that edged's window results are checked
// against: a seeded generator of out-of-order keyed streams, a batch oracle
// that recomputes every window from scratch, a naive simulation of the
// lateness rules that says which records a correct operator accepts, and
// comparison helpers with each aggregate's stated tolerance.
//
// Typical use (windows/ property tests, replay and end-to-end suites):
//
//	events := oracle.Generate(cfg)
//	sim := oracle.NewSim(asg, lateness)
//	for each event, in arrival order, with the watermark in force:
//	    sim.Advance(wm); verdict := sim.Offer(e)
//	for each result the system under test emitted for ref:
//	    want := oracle.Compute(asg, aggs, sim.Members(ref))[ref]
//	    err := oracle.Equal(got.Values, want, aggs)
//
// It deliberately shares no code with windows/ beyond its exported types:
// the aggregates are recomputed exactly (sorting for quantiles, sets for
// distinct counts). Only test code may import it; it must not import
// actors, MQTT or Badger.
package oracle
