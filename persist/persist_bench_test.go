package persist

// Run with:
//   go test -run '^$' -bench . -benchtime 2s ./persist/

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCommit1000Windows commits batches of 1,000 window states of 64 bytes
// (one flush of 100 actors with 10 dirty windows each).
func BenchmarkCommit1000Windows(b *testing.B) {
	for _, d := range []Durability{Process, Power, Memory} {
		b.Run(d.String(), func(b *testing.B) {
			s := openStore(b, Options{Durability: d})
			state := make([]byte, 64)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				batch := s.NewBatch()
				for k := range 100 {
					for w := range 10 {
						batch.PutWindow(WindowKey{"dev", "1m", "sensor-" + strconv.Itoa(k), int64(i*10+w) * 60000}, state)
					}
					batch.EndUnit()
				}
				if err := s.Commit(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "windows/s")
		})
	}
}

// BenchmarkEnqueue appends 200-byte records to one queue, n per commit.
func BenchmarkEnqueue(b *testing.B) {
	payload := []byte(strings.Repeat("x", 200))
	for _, d := range []Durability{Process, Power} {
		for _, n := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/%d_per_commit", d, n), func(b *testing.B) {
				s := openStore(b, Options{Durability: d})
				b.ReportAllocs()
				for b.Loop() {
					batch := s.NewBatch()
					for range n {
						batch.Enqueue("late/dev", payload)
					}
					if err := s.Commit(batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkMemory reports the Go heap in use (growth since before Open) and the
// process RSS with one store open (process durability): empty, and after writing
// 200,000 windows of 64 bytes in batches of 1,000. Most of the heap is Badger's
// memtable arenas, plus a table builder's buffer while a memtable is flushed.
func BenchmarkMemory(b *testing.B) {
	for _, windows := range []int{0, 200_000} {
		b.Run(fmt.Sprintf("%d_windows", windows), func(b *testing.B) {
			b.ReportAllocs()
			var heap, rss float64
			for b.Loop() {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				s, err := Open(Options{Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				state := make([]byte, 64)
				for i := 0; i < windows; i += 1000 {
					batch := s.NewBatch()
					for w := range 1000 {
						batch.PutWindow(WindowKey{"dev", "1m", "sensor-" + strconv.Itoa(w), int64(i) * 60000}, state)
					}
					if err := s.Commit(batch); err != nil {
						b.Fatal(err)
					}
				}
				debug.FreeOSMemory()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				heap = float64(after.HeapInuse) - float64(before.HeapInuse)
				rss = float64(rssBytes(b))
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(heap/(1<<20), "heap-MB")
			b.ReportMetric(rss/(1<<20), "rss-MB")
		})
	}
}

func rssBytes(b *testing.B) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
