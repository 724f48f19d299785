package actors

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/watermark"
)

// heard is a stand-in window actor and committer: it keeps the statuses its source
// sends it and the stream states the source's flushes save.
type heard struct {
	statuses []watermark.Status
	saved    []watermark.GeneratorState
}

func (h *heard) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *WatermarkEmitted:
		h.statuses = append(h.statuses, m.Status)
		m.done()
	case *Flushed:
		for _, u := range m.Units {
			if u.Stream != nil {
				h.saved = append(h.saved, u.Stream.State)
			}
		}
	}
}

// quietDevice's stream is idle after 50 ms without a record and then advances its
// watermark with the processing clock; its windows fire at 999, 1999, ... and are
// cleaned up 300 ms later.
func quietDevice(key string) string {
	return `
device: d
streams:
  - name: s
    topic: t/+
    timestamp: {field: ts, unit: ms}
    key: ` + key + `
    watermark: {strategy: bounded, max_out_of_orderness: 0s, interval: 10ms, idle_timeout: 50ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    allowed_lateness: 300ms
    aggregates: [count]
`
}

// quietSource spawns a source of device yaml for topic t/a, bound to a stand-in
// window actor, which also stands in for the committer. It saves idle states on up.
func quietSource(t *testing.T, yaml string, up *uptime) (root *actor.RootContext, src *actor.PID, win *heard) {
	t.Helper()
	topo, _, _ := newTestTopology(t, yaml)
	p := topo.router.devices[0].plan
	root = topo.system.Root
	win = &heard{}
	pid := root.Spawn(topo.env.props(func() actor.Actor { return win }))
	def := &sourceDef{env: topo.env, device: "d", plan: &p.streams[0], committer: pid, ticked: new(atomic.Int64), uptime: up}
	src = root.Spawn(topo.env.props(func() actor.Actor { return newSource(def, "t/a", newTestHandle(), nil, false) }))
	root.Send(src, &keyBound{id: keyID{0, "a"}, pid: pid})
	return root, src, win
}

// feedQuiet runs a source of device yaml through watermark marks and then
// idleness, and returns what its window actor heard.
func feedQuiet(t *testing.T, yaml string) []watermark.Status {
	t.Helper()
	root, src, win := quietSource(t, yaml, minuteUp())
	for _, wm := range []int64{100, 500, 998, 999, 1000, 1298, 1299, 1300, 1998} {
		root.Send(src, &MarkWatermark{Watermark: wm, At: 0})
	}
	for now := int64(10); now <= 1010; now += 10 {
		root.Send(src, &Tick{Now: now})
	}
	return win.statuses
}

// TestAQuietStreamSendsItsStatusWhereATimerMayBeDue checks that a stream whose keys
// are its topics tells its window actors of a new watermark only when it reaches a
// firing or cleanup time, and of every change of idleness; while idle, its
// extrapolated watermark reaches them at the same times.
func TestAQuietStreamSendsItsStatusWhereATimerMayBeDue(t *testing.T) {
	got := feedQuiet(t, quietDevice("{topic_segment: 1}"))
	// Bound at Min. The grid holds firings at 999, 1999, ... and cleanups at
	// 299, 1299, ...: mark 100 crosses 299 from Min, 500 crosses 299, 999 and 1299
	// are on it, 1998 is short of 1999. The stream is idle at the check at 70 (more
	// than 50 ms after the check at 20 found no record) and extrapolates from 1998
	// at 0: 2068 then, reaching the cleanup at 2299 by the check at 310 and the
	// firing at 2999 by the one at 1010.
	want := []watermark.Status{
		{Watermark: watermark.Min},
		{Watermark: 100},
		{Watermark: 500},
		{Watermark: 999},
		{Watermark: 1299},
		{Watermark: 2068, Idle: true},
		{Watermark: 2308, Idle: true},
		{Watermark: 3008, Idle: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("the window actor heard\n%v\nwant\n%v", got, want)
	}
}

// TestAStreamWhoseKeysSeveralTopicsFeedSendsEveryChange checks that a window actor
// fed by several streams hears every change: its watermark is the minimum over them.
func TestAStreamWhoseKeysSeveralTopicsFeedSendsEveryChange(t *testing.T) {
	got := feedQuiet(t, quietDevice("{field: sensor}"))
	if len(got) < 9+95 {
		t.Errorf("the window actor heard %d statuses, want one per mark and one per idle check: %v", len(got), got)
	}
}

func TestSoleFeederFollowsTheTopicFilterAndTheKey(t *testing.T) {
	for _, c := range []struct {
		topic   string
		field   string
		segment int
		want    bool
	}{
		{"t/+", "", 1, true},
		{"+/x", "", 0, true},
		{"t/+", "", -1, true}, // the key is the topic
		{"t/a", "sensor", -1, true},
		{"t/a", "", 0, true},
		{"t/+", "sensor", -1, false},
		{"t/+", "", 0, false},
		{"t/+/+", "", 1, false},
		{"t/+/#", "", 1, false},
		{"t/#", "", 1, false},
	} {
		s := &configs.Stream{Topic: c.topic, Key: configs.Key{Field: c.field, TopicSegment: c.segment}}
		if got := soleFeeder(s); got != c.want {
			t.Errorf("topic %q, key field %q segment %d: soleFeeder = %v, want %v", c.topic, c.field, c.segment, got, c.want)
		}
	}
}

// TestAnIdleStreamSavesItsStateOnceIdle checks that an idle stream in advance mode,
// flushed every check, saves its state when it goes idle and not as its watermark
// extrapolates: the state saved holds the base, on the uptime clock, that a restart
// drifts it from.
func TestAnIdleStreamSavesItsStateOnceIdle(t *testing.T) {
	root, src, win := quietSource(t, quietDevice("{topic_segment: 1}"), minuteUp())
	root.Send(src, &MarkWatermark{Watermark: 5000, At: 0})
	for now := int64(10); now <= 2500; now += 10 {
		root.Send(src, &Tick{Now: now})
		root.Send(src, &Flush{Epoch: uint64(now)})
	}
	var wms []int64
	for _, st := range win.saved {
		wms = append(wms, st.Watermark)
	}
	// Active at 5000 until the check at 70 declares it idle at 5070.
	if want := []int64{5000, 5070}; !slices.Equal(wms, want) {
		t.Fatalf("saved watermarks %v, want %v", wms, want)
	}
	last := win.saved[len(win.saved)-1]
	if !last.Idle || last.Base != 5000 || last.BaseAt != 60_000 {
		t.Errorf("saved idle state %+v, want the base 5000 at uptime 60000 (processing time 0)", last)
	}
	if got := last.Drifted(62_500).Watermark; got != 7500 {
		t.Errorf("drifted to the uptime of the last check, the saved state has watermark %d, want 7500", got)
	}
}

// minuteUp is the uptime of a device that ran a minute before: 60 s ahead of the
// processing time.
func minuteUp() *uptime {
	up := &uptime{before: 60_000}
	up.start(0)
	return up
}

// A source that goes idle before its pipeline's uptime clock starts saves no base,
// and saves its state again, with the base, once the clock runs.
func TestAnIdleStateSavedBeforeTheUptimeStartsIsSavedAgain(t *testing.T) {
	up := &uptime{before: 60_000}
	root, src, win := quietSource(t, quietDevice("{topic_segment: 1}"), up)
	root.Send(src, &MarkWatermark{Watermark: 5000, At: 0})
	for now := int64(10); now <= 200; now += 10 {
		if now == 150 {
			up.start(150)
		}
		root.Send(src, &Tick{Now: now})
		root.Send(src, &Flush{Epoch: uint64(now)})
	}
	n := len(win.saved)
	if n < 2 || win.saved[n-2].Base != watermark.Min || !win.saved[n-2].Idle {
		t.Fatalf("saved %+v: want an idle state without a base before the uptime started", win.saved)
	}
	if last := win.saved[n-1]; !last.Idle || last.Base != 5000 || last.BaseAt != 60_000-150 {
		t.Errorf("the last state saved is %+v, want the base 5000 at uptime %d", last, 60_000-150)
	}
}
