// Package tune measures, from recorded readings, how out of order and how
// bursty each stream is, so that max_out_of_orderness and idle_timeout can be
// chosen from the data (edged tune) instead of guessed.
//
// A reading's delay is how far its event time lies behind the highest event
// time its stream had accepted before it: max(0, M - ts). With a bound B the
// watermark is M - B - 1, so the reading is behind the watermark exactly when
// its delay exceeds B. That is the reading a window may already have fired
// without; whether it really missed one depends on where window ends fall, which
// a replay (edged tune --apply) measures.
//
// Quantiles are exact, by the nearest-rank method: the q-quantile of n sorted
// samples is the sample of rank ceil(q·n) (1-based), and always a sample. All
// fractions are integers in parts per million, so results do not depend on
// floating point. Hist is the same distribution in fixed buckets, for a
// running daemon that cannot keep every sample: its quantiles are the exact
// ones to within a bucket.
//
// Pure and deterministic: it imports the watermark package and the standard
// library only, and takes processing time as arguments.
package tune
