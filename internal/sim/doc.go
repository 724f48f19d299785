// Package sim is edged's sensor simulator: a seeded feed of out-of-order JSON
// readings from many sensors (bounded disorder, fractions held back and sent
// late or too late, some sensors falling silent for good or for a while),
// published to an MQTT broker paced by the wall clock, or written in the replay
// format of `edged replay`; and a feed of tags that come and go in cohorts
// (TagFeed), for the churn of keys a site sees.
//
// The same Config (seed and start time included) always gives the same
// sequence of (topic, payload, send time). `edged simulate`, `edged demo`, the
// benchmark and the end-to-end suites use it.
//
// It imports only the standard library and internal/escape (the JSON quoting
// of replay lines): publishing goes through the small Publisher interface, which
// *mqtt.Client satisfies. It must not import actors.
package sim
