package persist

import (
	"strconv"
	"testing"

	"github.com/edged/edged/watermark"
)

// BenchmarkCommitSteadyState commits what a device with 1,000 keys fed 20,000
// messages/s hands over every 50 ms: each key's valve and its open window again, the
// stream states, and with QoS 1 a dedup mark per message. Unlike
// BenchmarkCommit1000Windows the keys repeat, as they do between two checkpoints.
func BenchmarkCommitSteadyState(b *testing.B) {
	for _, qos := range []int{0, 1} {
		b.Run("qos"+strconv.Itoa(qos), func(b *testing.B) {
			s := openStore(b, Options{Durability: Process})
			state := make([]byte, 64)
			keys := make([]string, 1000)
			for k := range keys {
				keys[k] = "sensor-" + strconv.Itoa(k)
			}
			b.ReportAllocs()
			id := uint64(0)
			for i := 0; b.Loop(); i++ {
				batch := s.NewBatch()
				for k, key := range keys {
					batch.PutStream("dev", key, watermark.GeneratorState{Max: int64(i)})
					batch.PutValve("dev", "1m", key, int64(i), nil)
					batch.PutWindow(WindowKey{"dev", "1m", key, int64(i/1200) * 60000}, state)
					if qos == 1 {
						id++
						batch.PutMark("dev", "1m", keys[k], id)
					}
					batch.EndUnit()
				}
				if err := s.Commit(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N*len(keys)), "µs/msg")
		})
	}
}
