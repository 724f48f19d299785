package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/edged/edged/internal/sim"
)

// options size the simulated site and say which edged to run.
type options struct {
	days        int
	seed        uint64
	sensors     int
	sensorEvery time.Duration
	silent      int
	silentFor   time.Duration
	tags        int // tags per cohort, and so tags live at any time
	cohortEvery time.Duration
	tagEvery    time.Duration
	late        float64 // fraction of readings sent late, within the allowed lateness
	tooLate     float64 // fraction of readings sent past the allowed lateness
	maxKeys     int     // limits.max_keys_per_window
	perTopic    bool    // metrics.per_topic
	edged       string  // the edged binary; built from this checkout if empty
	dir         string  // working directory; a temporary one, removed at the end, if empty
}

// The shape of the soak's windows and watermarks, fixed so that the checker's
// model of each stream's watermark is unambiguous (see checker): readings
// arrive within soakDisorder of their event time, which the bound covers, or
// exactly soakLateBy late (well inside the lateness), or exactly tooLateBy
// late (well past it).
const (
	soakBound    = 2 * time.Second // watermark.max_out_of_orderness
	soakDisorder = 2 * time.Second // at most soakBound
	soakIdle     = 2 * time.Minute // watermark.idle_timeout, idle_mode advance
	soakWindow   = 5 * time.Minute // the sensors' tumbling window
	soakLateness = 2 * time.Minute // allowed_lateness of both windows
	soakLateBy   = time.Minute
	// soakStart is 2024-12-01T00:00:00Z: where the simulated week begins.
	soakStart = 1_733_011_200_000
	// soakSilentAfter is when the silent sensors first go quiet; they do
	// again every day.
	soakSilentAfter = 6 * time.Hour
)

// register binds the flags to o with the defaults of `make soak`.
func (o *options) register(fs *flag.FlagSet) {
	fs.IntVar(&o.days, "days", 7, "days to simulate; each is one `edged replay` into the same data dir")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the sensors' feed; the tags' is seed+1")
	fs.IntVar(&o.sensors, "sensors", 50, "fixed sensors, each with a tumbling window")
	fs.DurationVar(&o.sensorEvery, "sensor-every", 30*time.Second, "time between two readings of a sensor")
	fs.IntVar(&o.silent, "silent", 5, "sensors (the last ones) that go silent for -silent-for every day and come back")
	fs.DurationVar(&o.silentFor, "silent-for", 4*time.Hour, "how long a silent sensor stays quiet each day")
	fs.IntVar(&o.tags, "tags", 200, "tags live at any time: a cohort this large arrives every -cohort-every and reports for as long")
	fs.DurationVar(&o.cohortEvery, "cohort-every", time.Hour, "a new cohort of tags arrives this often; the previous one is gone for good")
	fs.DurationVar(&o.tagEvery, "tag-every", time.Minute, "time between two readings of a tag (each on its own topic tags/<tag>, with a session window)")
	fs.Float64Var(&o.late, "late", 0.01, "fraction of readings sent late but within the allowed lateness")
	fs.Float64Var(&o.tooLate, "too-late", 0.002, "fraction of readings sent past the allowed lateness")
	fs.IntVar(&o.maxKeys, "max-keys", 10000, "limits.max_keys_per_window")
	fs.BoolVar(&o.perTopic, "per-topic", true, "metrics.per_topic: stream series per concrete topic, as a site that watches each sensor sets it")
	fs.StringVar(&o.edged, "edged", "", "the edged binary to soak (default: build ./cmd/edged)")
	fs.StringVar(&o.dir, "dir", "", "working directory for feeds, outputs and the data dir (default: a temporary one, removed at the end)")
}

// validate reports every setting out of range at once; the feeds check their own.
func (o *options) validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if o.days < 1 {
		bad("-days is %d: at least 1", o.days)
	}
	if o.sensors < 0 || o.tags < 0 || o.sensors+o.tags == 0 {
		bad("-sensors %d and -tags %d: at least one of them above 0, neither negative", o.sensors, o.tags)
	}
	if o.sensors > 0 && (o.sensorEvery < time.Millisecond || o.sensorEvery > time.Hour) {
		bad("-sensor-every is %s: between 1ms and 1h", o.sensorEvery)
	}
	if o.tags > 0 && (o.tagEvery < time.Millisecond || o.tagEvery > 2*time.Minute) {
		bad("-tag-every is %s: between 1ms and 2m (a tag's session must not break between two readings)", o.tagEvery)
	}
	if o.cohortEvery <= 0 {
		bad("-cohort-every is %s: above 0", o.cohortEvery)
	}
	if o.silentFor < 0 || o.silentFor >= 24*time.Hour-soakSilentAfter {
		bad("-silent-for is %s: at least 0 and under %s", o.silentFor, 24*time.Hour-soakSilentAfter)
	}
	if o.maxKeys < 1 {
		bad("-max-keys is %d: at least 1", o.maxKeys)
	}
	return errors.Join(errs...)
}

// sessionGap is the tags' session gap: three readings' time, so a session
// lasts as long as its tag reports.
func (o *options) sessionGap() time.Duration { return 3 * o.tagEvery }

// tooLateBy is how long after its event time a too-late reading arrives: past
// the longest window plus the lateness, with room for the stream's own delays
// (its disorder, its bound, and an idle timeout after a restart, when idleness
// is measured afresh), so edged sends it to the late output whatever the
// processing-time details.
func (o *options) tooLateBy() time.Duration {
	return max(soakWindow, o.sessionGap()) + soakLateness + soakBound + soakDisorder + soakIdle + 5*time.Minute
}

// site builds the soak's site from the options.
func (o *options) site() *site {
	s := &site{start: soakStart, day: 24 * time.Hour, days: o.days}
	week := time.Duration(o.days) * s.day
	if o.sensors > 0 {
		s.sensors = &sim.Config{
			Sensors: o.sensors, Rate: float64(time.Second) / float64(o.sensorEvery), Duration: week,
			Disorder: soakDisorder, LateFraction: o.late, LateBy: soakLateBy,
			TooLateFraction: o.tooLate, TooLateBy: o.tooLateBy(),
			Silent: min(o.silent, o.sensors), SilentAfter: soakSilentAfter, SilentFor: o.silentFor, SilentEvery: 24 * time.Hour,
			Seed: o.seed, Start: soakStart,
		}
		if o.late == 0 {
			s.sensors.LateBy = 0
		}
		if o.tooLate == 0 {
			s.sensors.TooLateBy = 0
		}
	}
	if o.tags > 0 {
		s.tags = &sim.TagConfig{
			Cohort: o.tags, Every: o.cohortEvery, Life: o.cohortEvery, Period: o.tagEvery, Duration: week,
			Disorder: soakDisorder, LateFraction: o.late, LateBy: soakLateBy,
			TooLateFraction: o.tooLate, TooLateBy: o.tooLateBy(),
			Seed: o.seed + 1, Start: soakStart,
		}
	}
	s.daemon, s.device = soakConfig(o)
	return s
}

// soakConfig is the daemon and device file of the soak's site: a 5-minute
// tumbling window per sensor and a session window per tag, both with allowed
// lateness, late records to the late output.
func soakConfig(o *options) (daemon, device string) {
	daemon = fmt.Sprintf(`# The soak's gateway: state on disk (replay --data), metrics as a scrape sees them.
log: {level: warn}
http: {listen: ""}
metrics: {per_topic: %v}
limits: {max_keys_per_window: %d}
`, o.perTopic, o.maxKeys)
	wm := fmt.Sprintf("{strategy: bounded, max_out_of_orderness: %s, idle_timeout: %s, idle_mode: advance}", soakBound, soakIdle)
	device = fmt.Sprintf(`device: site
streams:
  - name: %[1]s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: %[3]s
  - name: %[2]s
    topic: tags/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: %[3]s
windows:
  - name: env
    stream: %[1]s
    type: tumbling
    size: %[4]s
    allowed_lateness: %[6]s
    aggregates: [count, avg(temp), min(temp), max(temp), avg(hum)]
    late: upstream
  - name: visit
    stream: %[2]s
    type: session
    gap: %[5]s
    allowed_lateness: %[6]s
    aggregates: [count, avg(rssi), min(rssi), max(rssi)]
    late: upstream
`, sensorStream, tagStream, wm, soakWindow, o.sessionGap(), soakLateness)
	return daemon, device
}
