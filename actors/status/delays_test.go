package status

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/watermark"
)

func TestStatusDelaysJSONAndBoundChanges(t *testing.T) {
	stats := NewStats()
	g := stats.Topic("d", "s", "t/a")
	bounded := watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 100}
	d := stats.Delays(g, bounded)
	hi := watermark.Min
	for _, ts := range []int64{1000, 990, 2000, 1850, 1899, 2000} { // delays 0 10 0 150 101 0
		hi = max(hi, ts)
		d.Record(hi, ts)
	}
	if stats.Delays(g, bounded) != d {
		t.Fatal("a restarted source with the same bound starts the statistics afresh")
	}
	const now = 1_700_000_000_000
	st := NewSampler(prometheus.NewRegistry(), stats, 0, nil, nil)
	st.Sample(time.UnixMilli(now))
	b, err := json.Marshal(st.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	want := `"delays":[{"device":"d","definition":"s","strategy":"bounded","since":1700000000000,"readings":6,` +
		`"p50_ms":0,"p90_ms":150,"p99_ms":150,"p999_ms":150,"max_ms":150,"max_out_of_orderness_ms":100,` +
		`"later_than_bound":2,"later_than_bound_fraction":0.3333333333333333}],"delays_total":1`
	if !strings.Contains(string(b), want) {
		t.Errorf("/status JSON:\n%s\nwant it to hold\n%s", b, want)
	}

	// A reload that changes the bound starts afresh; punctuated streams have none.
	if stats.Delays(g, watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 500}) == d {
		t.Fatal("a new bound kept the late count of the old one")
	}
	p := stats.Delays(g, watermark.Config{Strategy: watermark.Punctuated, MaxOutOfOrderness: 500})
	p.Record(2000, 1000)
	st.Sample(time.UnixMilli(now + 2000))
	x := st.Snapshot().Delays[0]
	if x.Readings != 1 || *x.MaxMS != 1000 || x.MaxOutOfOrdernessMS != nil || x.LaterThanBound != 0 || x.Since != now+2000 {
		t.Errorf("punctuated: %+v", x)
	}
}
