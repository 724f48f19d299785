// Package status is what edged reports about its streams and shows at /status: the
// per-topic statistics its source and window actors set on the record path (Stats,
// Topic, Delays: atomics, no lock, no allocation), the Prometheus collector that
// turns them into series at scrape time, and the /status page: its JSON model
// (Status and its blocks, the config block included), the Sampler that builds it
// every Every from the statistics and the registry, and the handlers of /status
// and of the page at /.
//
// The daemon owns the glue: it registers the collector, runs the sampler and fills
// the config block. This package may import prometheus, watermark and
// watermark/tune; never actors, which imports it.
package status
