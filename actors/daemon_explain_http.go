package actors

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// GET /explain?device=D&window=W&key=K answers why the windows of key K have or
// have not fired, as `edged explain` does for a stopped data dir, from the key's
// window actor (asked through its pipeline) or, for a key without one, its saved
// state, with the live state of the streams that feed it. device may be left out
// when one device has a window W; at=T (ms or RFC 3339) explains the windows
// holding event time T; format=text answers in edged explain's words.
// GET /explain?device=D&stream=T lists the keys topic T feeds, each with its link.

// explainTimeout bounds the wait for a pipeline and a window actor to answer.
const explainTimeout = 2 * time.Second

// explainError is an answer that is not an explanation: status and reason.
type explainError struct {
	code int
	msg  string
}

func (e *explainError) Error() string { return e.msg }

func explainErrorf(code int, format string, args ...any) *explainError {
	return &explainError{code, fmt.Sprintf(format, args...)}
}

func (d *Daemon) serveExplain(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		replyJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "/explain is read-only: GET only"})
		return
	}
	q := r.URL.Query()
	var v any
	var err error
	if q.Has("stream") {
		v, err = d.explainStream(q.Get("device"), q.Get("stream"))
	} else {
		var e *explain.Explanation
		if e, err = d.explainQuery(q); err == nil && q.Get("format") == "text" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			explain.Write(w, e)
			return
		}
		v = e
	}
	var xe *explainError
	switch {
	case errors.As(err, &xe):
		replyJSON(w, xe.code, map[string]string{"error": xe.msg})
	case err != nil:
		replyJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		replyJSON(w, http.StatusOK, v)
	}
}

func (d *Daemon) explainQuery(q url.Values) (*explain.Explanation, error) {
	var missing []string
	for _, p := range []string{"window", "key"} {
		if q.Get(p) == "" {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, explainErrorf(http.StatusBadRequest, "missing parameter %s: ask /explain?device=D&window=W&key=K (device may be left out when one device has window W), or /explain?device=D&stream=T",
			strings.Join(missing, " and "))
	}
	var at *int64
	if s := q.Get("at"); s != "" {
		t, err := parseInstant(s)
		if err != nil {
			return nil, explainErrorf(http.StatusBadRequest, "parameter at=%q: %v", s, err)
		}
		at = &t
	}
	t, err := d.explainTarget(q.Get("device"), q.Get("window"))
	if err != nil {
		return nil, err
	}
	return d.explainKey(t, q.Get("key"), at)
}

// target is a window definition of a running pipeline.
type target struct {
	plan *plan
	pid  *actor.PID
	win  int
}

// devices returns the running pipelines with their plans.
func (d *Daemon) devices() []target {
	d.topo.mu.RLock()
	defer d.topo.mu.RUnlock()
	out := make([]target, len(d.topo.pipelines))
	for i, pid := range d.topo.pipelines {
		out[i] = target{plan: d.topo.router.devices[i].plan, pid: pid}
	}
	return out
}

// explainTarget finds window of device, or the one device that has a window
// of that name when device is empty.
func (d *Daemon) explainTarget(device, window string) (target, error) {
	devs := d.devices()
	if device != "" {
		i := slices.IndexFunc(devs, func(t target) bool { return t.plan.device.ID == device })
		if i < 0 {
			names := make([]string, len(devs))
			for j, t := range devs {
				names[j] = t.plan.device.ID
			}
			return target{}, explainErrorf(http.StatusNotFound, "unknown device %q (devices: %s)", device, list(names))
		}
		t := devs[i]
		var names []string
		for wi, w := range t.plan.windows {
			if w.cfg.Name == window {
				t.win = wi
				return t, nil
			}
			names = append(names, w.cfg.Name)
		}
		return target{}, explainErrorf(http.StatusNotFound, "unknown window %q: device %s has the windows %s", window, device, list(names))
	}
	var found []target
	var names, owners []string
	for _, t := range devs {
		for wi, w := range t.plan.windows {
			names = append(names, t.plan.device.ID+"/"+w.cfg.Name)
			if w.cfg.Name == window {
				t.win = wi
				found = append(found, t)
				owners = append(owners, t.plan.device.ID)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return target{}, explainErrorf(http.StatusNotFound, "unknown window %q: no device has it (windows: %s)", window, list(names))
	}
	return target{}, explainErrorf(http.StatusBadRequest, "device ambiguous: devices %s all have a window %q: add device=D", strings.Join(owners, ", "), window)
}

// explainKey asks the key's window actor for its state, or reads the key's saved
// state if it has none, and reasons about it with the live state of its streams.
func (d *Daemon) explainKey(t target, key string, at *int64) (*explain.Explanation, error) {
	wp := &t.plan.windows[t.win]
	device := t.plan.device.ID
	res, err := d.topo.system.Root.RequestFuture(t.pid, &explainWanted{win: t.win, key: key}, explainTimeout).Result()
	var answer keyExplained
	switch {
	case err == nil:
		if a, ok := res.(*keyExplained); ok {
			answer = *a
		}
	case errors.Is(err, actor.ErrDeadLetter): // the window actor stopped meanwhile: its state is saved
	default:
		return nil, explainErrorf(http.StatusServiceUnavailable, "device %s did not answer within %s: %v", device, explainTimeout, err)
	}
	ks := answer.state
	note := ""
	if ks == nil {
		states, _, err := d.store.LoadKeys(device, []persist.KeyName{{Window: wp.cfg.Name, Key: key}})
		if err != nil {
			return nil, fmt.Errorf("reading the saved state of key %q of window %s: %w", key, wp.cfg.Name, err)
		}
		if states[0] != nil {
			if ks, err = ExplainSaved(windows.NewOperator(wp.op), key, states[0]); err != nil {
				return nil, err
			}
			note = "the key's window actor is passivated (stopped until the key's next reading): this is its saved state"
			if answer.restoring {
				note = "the key is not restored yet since the start: this is its saved state"
			}
		}
	}
	def, err := ParseWindowDef(wp.def)
	if err != nil {
		return nil, err
	}
	lateness := wp.cfg.AllowedLateness.Milliseconds()
	stream := t.plan.streams[wp.stream].wm
	in := explain.Input{
		Device: device, Window: wp.cfg.Name, Key: key, Def: explain.Def(def),
		Lateness: &lateness, Stream: &stream, State: ks, At: at, Now: d.now(),
	}
	if ks != nil {
		in.Streams = d.streamsNow(device, ks.Valve, in.Now)
	}
	e := explain.Build(&in)
	if note != "" {
		e.Note = strings.TrimPrefix(e.Note+"; "+note, "; ")
	}
	return e, nil
}

// streamsNow is the live state of the streams in a key's valve.
func (d *Daemon) streamsNow(device string, valve []watermark.ValveInput, now int64) map[string]explain.StreamState {
	out := map[string]explain.StreamState{}
	for _, v := range valve {
		x, ok := d.status.StreamNow(device, v.Input, now)
		if !ok {
			continue
		}
		r := x.Row
		g := explain.StreamState{Watermark: msOr(r.Watermark), Idle: r.Idle, Speed: x.Speed, SpeedKnown: x.SpeedKnown}
		if r.MaxEventTime != nil && r.LastRecordMS != nil {
			g.Seen, g.Max, g.LastArrival = true, *r.MaxEventTime, now-*r.LastRecordMS
		}
		out[v.Input] = g
	}
	return out
}

// streamFeeds is what /explain?stream= answers.
type streamFeeds struct {
	Device string `json:"device"`
	Stream string `json:"stream"`
	// Status is the topic's /status row as of now.
	Status         any         `json:"status"`
	WatermarkSpeed *float64    `json:"watermark_speed,omitempty"`
	Feeds          []keyFeeder `json:"feeds"`
	FeedsTotal     int         `json:"feeds_total"`
	Note           string      `json:"note,omitempty"`
}

type keyFeeder struct {
	Window  string `json:"window"`
	Key     string `json:"key"`
	Explain string `json:"explain"`
}

// explainStream lists the keys topic feeds, whose window actors run.
func (d *Daemon) explainStream(device, topic string) (*streamFeeds, error) {
	if topic == "" {
		return nil, explainErrorf(http.StatusBadRequest, "missing parameter stream: ask /explain?device=D&stream=T")
	}
	if device == "" {
		switch devs := d.metrics.Streams.DevicesOf(topic); len(devs) {
		case 0:
			return nil, explainErrorf(http.StatusNotFound, "unknown stream %q: no device has had a message on it", topic)
		case 1:
			device = devs[0]
		default:
			return nil, explainErrorf(http.StatusBadRequest, "device ambiguous: devices %s all have stream %q: add device=D", strings.Join(devs, ", "), topic)
		}
	}
	var t *target
	var names []string
	for _, x := range d.devices() {
		names = append(names, x.plan.device.ID)
		if x.plan.device.ID == device {
			t = &x
		}
	}
	if t == nil {
		return nil, explainErrorf(http.StatusNotFound, "unknown device %q (devices: %s)", device, list(names))
	}
	x, ok := d.status.StreamNow(device, topic, d.now())
	if !ok {
		return nil, explainErrorf(http.StatusNotFound, "unknown stream %q: device %s has had no message on it", topic, device)
	}
	res, err := d.topo.system.Root.RequestFuture(t.pid, &feedsWanted{topic: topic}, explainTimeout).Result()
	if err != nil {
		return nil, explainErrorf(http.StatusServiceUnavailable, "device %s did not answer within %s: %v", device, explainTimeout, err)
	}
	f, _ := res.(*feeds)
	if f == nil {
		f = &feeds{}
	}
	out := &streamFeeds{Device: device, Stream: topic, Status: x.Row, Feeds: []keyFeeder{}, FeedsTotal: f.total}
	if x.SpeedKnown {
		out.WatermarkSpeed = &x.Speed
	}
	for _, k := range f.keys {
		out.Feeds = append(out.Feeds, keyFeeder{Window: k[0], Key: k[1], Explain: ExplainLink(device, k[0], k[1])})
	}
	if f.total == 0 {
		out.Note = "it feeds no key whose window actor runs: the keys it fed are passivated, or it had no reading yet"
	}
	return out, nil
}

// ExplainLink is the /explain address of a key.
func ExplainLink(device, window, key string) string {
	return "/explain?" + url.Values{"device": {device}, "window": {window}, "key": {key}}.Encode()
}

// now is the processing time, which a reading's arrival is measured in.
func (d *Daemon) now() int64 {
	if d.clock != nil {
		return d.clock()
	}
	return time.Now().UnixMilli()
}

// parseInstant reads ms since the epoch or an RFC 3339 time.
func parseInstant(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, errors.New("not ms since the epoch nor an RFC 3339 time")
	}
	return t.UnixMilli(), nil
}

func msOr(v *int64) int64 {
	if v == nil {
		return watermark.Min
	}
	return *v
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	names = slices.Clone(names)
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ", ")
}

func replyJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // links carry &
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
