package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

// heapPeakEvery is how often watchHeapPeak samples the runtime's memory.
const heapPeakEvery = 20 * time.Millisecond

// memClasses are the runtime's memory classes watchHeapPeak reports at the peak:
// together with what the runtime released they add up to what it mapped.
var memClasses = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/os-stacks:bytes",
	"/memory/classes/metadata/other:bytes",
	"/memory/classes/other:bytes",
	"/memory/classes/profiling/buckets:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/gc/heap/live:bytes",
}

// Where watchHeapPeak finds what it decides on in memClasses.
var (
	totalClass    = classIndex("/memory/classes/total:bytes")
	releasedClass = classIndex("/memory/classes/heap/released:bytes")
	liveClass     = classIndex("/gc/heap/live:bytes")
)

func classIndex(name string) int {
	i := slices.Index(memClasses, name)
	if i < 0 {
		panic("memClasses lacks " + name)
	}
	return i
}

// watchHeapPeak writes a heap profile to path each time the live heap, as the last
// collection measured it, grows 5 % past its previous peak: a heap profile shows the
// heap as of the last collection, so what is left in path is what was live at the
// collection that found the most, which sets the heap's goal and so its peak. On stop
// it prints to stderr the runtime's memory classes at the moment its resident part
// (mapped minus released) peaked, which is where peak RSS comes from.
func watchHeapPeak(path string) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		sample := make([]metrics.Sample, len(memClasses))
		for i, name := range memClasses {
			sample[i].Name = name
		}
		atPeak := make([]uint64, len(memClasses))
		var livePeak, residentPeak uint64
		var rss rssPeak
		tick := time.NewTicker(heapPeakEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				printMemClasses(atPeak)
				fmt.Fprintf(os.Stderr, "process at its RSS peak: %s\n", &rss)
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if v := sample[liveClass].Value.Uint64(); v > livePeak+livePeak/20 {
				livePeak = v
				writeHeapProfile(path)
			}
			if status, err := os.ReadFile("/proc/self/status"); err == nil {
				rss.see(string(status))
			}
			if r := sample[totalClass].Value.Uint64() - sample[releasedClass].Value.Uint64(); r > residentPeak {
				residentPeak = r
				for i := range sample {
					atPeak[i] = sample[i].Value.Uint64()
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

func printMemClasses(v []uint64) {
	var b strings.Builder
	b.WriteString("Go memory at its resident peak, MiB:")
	for i, name := range memClasses {
		name = strings.TrimSuffix(strings.TrimPrefix(name, "/memory/classes/"), ":bytes")
		fmt.Fprintf(&b, " %s %.1f", name, float64(v[i])/(1<<20))
	}
	fmt.Fprintln(os.Stderr, b.String())
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "heap profile: %v\n", err)
	}
}
