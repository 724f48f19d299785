package watermark

import (
	"fmt"
	"testing"
)

// Run with: go test ./watermark -run '^$' -bench Valve -benchmem

func BenchmarkValveUpdate(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("inputs=%d", n), func(b *testing.B) {
			v := NewValve()
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("sensors/s-%d/data", i)
				v.Update(names[i], Status{Watermark: 0})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				v.Update(names[i%n], Status{Watermark: int64(i)})
			}
		})
	}
}
