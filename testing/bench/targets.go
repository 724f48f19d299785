package main

import (
	"fmt"
	"io"
	"time"
)

// targets are the measures issue 11's table tracks, each from this run.
type targets struct {
	loop, process, wide *measurement
	live                *liveResult
	gob                 *goBench
	restart             *restart
	restartErr          error
}

const notMeasured = "not measured"

func (tg *targets) print(w io.Writer, o *options) {
	fmt.Fprintln(w, "| measure | this run | how |")
	fmt.Fprintln(w, "|---|---:|---|")
	row := func(name, value, how string) { fmt.Fprintf(w, "| %s | %s | %s |\n", name, value, how) }
	row("replay, durability process, vs the plain Go loop", fmt.Sprintf("%.3f", tg.process.rate()/tg.loop.rate()),
		fmt.Sprintf("%s vs %s events/s, same file, same run", thousands(tg.process.rate()), thousands(tg.loop.rate())))
	if tg.gob.err != nil {
		row("replay allocations per event (BenchmarkReplay)", notMeasured, tg.gob.err.Error())
	} else {
		row("replay allocations per event (BenchmarkReplay)", fmt.Sprintf("%.1f", tg.gob.allocsPerEvent), "go test -bench BenchmarkReplay -benchtime 1x ./actors")
	}
	l := tg.live
	for qos := range 2 {
		name := fmt.Sprintf("live QoS %d, CPU per message at %s msg/s", qos, thousands(cpuRate))
		t := (*trial)(nil)
		if l != nil {
			t = l.fixed[qos]
		}
		if t == nil {
			row(name, notMeasured, "live part skipped")
			continue
		}
		how := fmt.Sprintf("edged's CPU (/proc/<pid>/stat) from the first publish to %s after the last, / %d messages", grace, t.sent)
		if !t.ok {
			how += "; NOT sustained: " + t.why
		}
		row(name, fmt.Sprintf("%.1f µs", t.edgedCPU/float64(t.sent)*1e6), how)
	}
	for qos := range 2 {
		name := fmt.Sprintf("highest lossless live rate, QoS %d", qos)
		if l == nil {
			row(name, notMeasured, "live part skipped")
			continue
		}
		b, lim := l.best[qos], l.limit[qos]
		value := "none"
		if b != nil {
			value = thousands(b.rate) + " msg/s"
		}
		how := "every message processed within the trial, none shed, every window row equal to the oracle"
		if b != nil {
			how += fmt.Sprintf(" (%d rows)", b.rows)
		}
		switch {
		case lim == nil:
			how += "; no failing rate found within the time budget"
		default:
			how += fmt.Sprintf("; %s msg/s failed (%s); bottleneck: %s", thousands(lim.rate), lim.why, lim.bottleneck())
		}
		if !l.searched[qos] {
			how += "; search stopped by its time budget"
		}
		row(name, value, how)
	}
	rss := notMeasured
	if l != nil {
		var peak *trial
		for _, t := range l.best {
			if t != nil && (peak == nil || t.maxRSS > peak.maxRSS) {
				peak = t
			}
		}
		if peak != nil {
			rss = fmt.Sprintf("%.0f MiB (anonymous %.0f, file %.0f)", peak.maxRSS, mib(peak.rssParts.anon), mib(peak.rssParts.file))
		}
	}
	row(fmt.Sprintf("peak RSS, %s sensors at full load", thousands(float64(o.sensors))), rss,
		fmt.Sprintf("VmHWM of edged run at the highest lossless rates (the bench config: commit 50 ms), split as at its highest sample every %s (file: the executable and Badger's mapped files, pages the kernel can reclaim once written back); replay: %.0f MiB", heapPeakEvery, tg.process.MaxRSS))
	row(fmt.Sprintf("peak RSS, %s sensors (%s open windows)", thousands(wideSensors), thousands(wideSensors)),
		fmt.Sprintf("%.0f MiB", tg.wide.MaxRSS), "replay, durability process, 5 readings per sensor")
	if tg.gob.err != nil {
		row("heap per idle key", notMeasured, tg.gob.err.Error())
	} else {
		row("heap per idle key", fmt.Sprintf("%.0f B", tg.gob.heapPerKey),
			fmt.Sprintf("BenchmarkHeapPerIdleKey/count_sum: the heap 10,000 idle keys add (source + window actor + open window + statistics); %.0f B with make bench's aggregates (a p95 sketch)", tg.gob.heapPerKeyP95))
	}
	name := "restart with 100,000 open windows: first message processed / healthz ready"
	switch {
	case tg.restart != nil:
		r := tg.restart
		row(name, fmt.Sprintf("%s / %s", r.firstMessage.Round(10*time.Millisecond), r.ready.Round(10*time.Millisecond)),
			fmt.Sprintf("from exec of edged run on a data dir with one open window per sensor; every key back after %s, peak RSS then %.0f MiB (the replay that built the state: %.0f MiB)",
				r.restored.Round(10*time.Millisecond), r.rss, r.steadyRSS))
	case tg.restartErr != nil:
		row(name, notMeasured, tg.restartErr.Error())
	default:
		row(name, notMeasured, "needs Mosquitto: the live part was skipped")
	}
	name = fmt.Sprintf("result latency after the watermark passes the window end (live QoS 1, %s msg/s)", thousands(latencyRate))
	if l == nil || l.latency == nil || len(l.latency.latencies) == 0 {
		row(name, notMeasured, "live part skipped or no rows")
		return
	}
	t := l.latency
	how := fmt.Sprintf("%d rows: from publishing the sensor's message with ts ≥ end + 500 ms to the row at a subscriber", len(t.latencies))
	if !t.ok {
		how += "; NOT sustained: " + t.why
	}
	if b := l.best[1]; b != nil && len(b.latencies) > 0 {
		how += fmt.Sprintf("; at the highest sustained QoS 1 rate (%s msg/s): %s", thousands(b.rate), quantiles(b.latencies))
	}
	row(name, quantiles(t.latencies), how)
}

func quantiles(ds []time.Duration) string {
	return fmt.Sprintf("p50 %s, p99 %s", percentile(ds, 0.5).Round(time.Millisecond), percentile(ds, 0.99).Round(time.Millisecond))
}
