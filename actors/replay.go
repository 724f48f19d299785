package actors

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/valyala/fastjson"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// ReplayOptions configure `edged replay`.
type ReplayOptions struct {
	Config     *configs.Daemon
	Input      io.Reader // JSON lines: messages and explicit watermarks (docs/operations.md)
	Output     io.Writer // JSON lines: results, {"late": ...}, {"watermark": ...}
	Watermarks bool      // also write every watermark change
	DataDir    string    // "" keeps state in memory
	// Durability of the state in DataDir (zero value: persist.Process); the
	// benchmark compares the cost of each.
	Durability persist.Durability
	// KeepOpen skips the final +∞ watermark: windows still open at the end of the
	// input stay open in DataDir, so a later replay into it can go on.
	KeepOpen bool
	// Metrics receives the replay's series (nil: a fresh set as the config's
	// metrics section asks), so a caller can read what `run` would expose.
	Metrics *Metrics
	Log     *slog.Logger

	// For tests: how long a quiet key of window definition win, or a quiet source of
	// stream definition def, waits before it is passivated (negative: never),
	// instead of the configured delays.
	keyDelay    func(win int) int64
	sourceDelay func(def int) int64
}

// ReplayStats count what a replay read and wrote.
type ReplayStats struct {
	Lines, Messages, Watermarks, Results, Late int
}

// maxReplayGap bounds how much quiet time between two lines is ticked through; past
// it the clock jumps. Watermarks extrapolate from elapsed time, so they land in the
// same place; only the processing times of firings inside the gap differ.
const maxReplayGap = 10 * 60 * 1000

// Replay runs the same topology as `run` on recorded input, with a virtual clock that
// jumps to each line's time and the synchronized dispatcher, so the same input always
// gives byte-identical output. At the end of the input every stream's watermark
// moves to +∞, as Flink does at the end of a bounded input, so every window fires
// (unless KeepOpen).
func Replay(o ReplayOptions) (ReplayStats, error) {
	var stats ReplayStats
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dur := o.Durability
	if o.DataDir == "" {
		dur = persist.Memory
	}
	applyMemoryBudget(o.Config.Limits.Memory, log)
	store, err := persist.Open(persist.Options{Dir: o.DataDir, Durability: dur, DedupTTL: o.Config.DedupTTL, Logger: log, Memory: o.Config.Limits.Memory})
	if err != nil {
		return stats, err
	}
	defer store.Close()
	out := bufio.NewWriterSize(o.Output, 1<<16)
	w := &replayWriter{order: newReplayOrder(out), stats: &stats, traced: map[[2]string]watermark.Status{}}
	late := func(e *env) *actor.PID {
		return e.system.Root.Spawn(e.props(func() actor.Actor { return w }))
	}
	metrics := o.Metrics
	if metrics == nil {
		metrics = MetricsFor(o.Config.Metrics)
	}
	topo, err := buildTopology(o.Config, store, metrics, log, actor.NewSynchronizedDispatcher(300), w, late)
	if err != nil {
		return stats, err
	}
	defer topo.system.Shutdown()
	for i := range topo.router.devices {
		topo.router.devices[i].maxInflight = math.MaxInt64 // replay never sheds load
	}
	if o.Watermarks {
		topo.env.traceWatermark = w.watermark
	}
	topo.env.traceOutput = w.order.produced
	topo.env.passivateDelay, topo.env.passivateSourceDelay = o.keyDelay, o.sourceDelay
	root := topo.system.Root
	in := bufio.NewScanner(o.Input)
	in.Buffer(make([]byte, 0, 1<<16), 16<<20)
	var (
		now, next int64
		started   bool
		parser    fastjson.Parser
		payload   []byte
		scratch   []byte
		payloads  payloadArena
		inbounds  inboundPool
		topics    = internTable{}
	)
	for in.Scan() {
		stats.Lines++
		line := bytes.TrimSpace(in.Bytes())
		if len(line) == 0 {
			continue
		}
		v, err := parser.ParseBytes(line)
		if err != nil {
			return stats, fmt.Errorf("input line %d: %w", stats.Lines, err)
		}
		at := v.Get("at")
		if at == nil || at.Type() != fastjson.TypeNumber {
			return stats, fmt.Errorf("input line %d: missing \"at\" (processing time in ms)", stats.Lines)
		}
		t, err := at.Int64()
		if err != nil {
			return stats, fmt.Errorf("input line %d: at: %w", stats.Lines, err)
		}
		if !started {
			started, now, next = true, t, t
		}
		if t < now {
			return stats, fmt.Errorf("input line %d: at %d goes back in time (previous %d)", stats.Lines, t, now)
		}
		now = t
		if now-next > maxReplayGap {
			next = now - maxReplayGap
		}
		for ; next <= now; next += tickEvery.Milliseconds() {
			topo.tick(next)
		}
		topic := topics.intern(v.GetStringBytes("topic"))
		switch wm := v.Get("watermark"); {
		case wm != nil && topic == "":
			stream := string(v.GetStringBytes("stream"))
			ms, err := wm.Int64()
			if stream == "" || err != nil {
				return stats, fmt.Errorf("input line %d: a watermark line needs \"stream\" and an integer \"watermark\"", stats.Lines)
			}
			stats.Watermarks++
			for _, p := range topo.pipelines {
				root.Send(p, &MarkWatermark{Stream: stream, Watermark: ms, At: now})
			}
		case topic != "":
			stats.Messages++
			// A JSON string payload is replayed as the raw bytes it holds, so recorded
			// non-JSON payloads replay too. Each message gets its own copy: late
			// records keep it.
			p := v.Get("payload")
			switch {
			case p == nil:
				payload = nil
			case p.Type() == fastjson.TypeString:
				payload = payloads.copy(p.GetStringBytes())
			default:
				// Marshalled into a reused buffer, then copied at its final size.
				scratch = p.MarshalTo(scratch[:0])
				payload = payloads.copy(scratch)
			}
			// QoS 0: nothing is redelivered in a replay, so no dedup marks are needed.
			in := inbounds.get()
			in.Inbound = Inbound{Topic: topic, Payload: payload, At: now}
			topo.router.route(&in.Inbound, in.put)
		default:
			return stats, fmt.Errorf("input line %d: neither a message (topic, payload) nor a watermark (stream, watermark)", stats.Lines)
		}
	}
	if err := in.Err(); err != nil {
		return stats, fmt.Errorf("reading input: %w", err)
	}
	if !o.KeepOpen {
		for _, p := range topo.pipelines {
			root.Send(p, &MarkWatermark{Watermark: math.MaxInt64, At: now})
		}
	}
	topo.flushAll() // the synchronized dispatcher has committed when Send returns
	// The sink confirmed what that commit published; commit the confirmations too,
	// or a later replay into the same --data dir would publish those results again.
	topo.flushAll()
	w.order.finish()
	return stats, out.Flush()
}

// internTable hands out one string per distinct topic: a replay repeats the same
// few topics on every line, and each line's topic would otherwise be a new string.
// It grows with the distinct topics of the input, as the topology's source actors do.
type internTable map[string]string

func (t internTable) intern(b []byte) string {
	if s, ok := t[string(b)]; ok { // the lookup does not allocate
		return s
	}
	s := string(b)
	t[s] = s
	return s
}

// payloadArena copies replayed payloads into shared chunks: one allocation serves
// many messages instead of one each. A chunk lives while any payload cut from it
// does (a late record keeps its payload), which a replay can afford.
type payloadArena struct{ chunk []byte }

// payloadChunk is the size of one chunk; a larger payload gets its own.
const payloadChunk = 64 << 10

func (a *payloadArena) copy(p []byte) []byte {
	if len(p) > payloadChunk/8 {
		return bytes.Clone(p)
	}
	if cap(a.chunk)-len(a.chunk) < len(p) {
		a.chunk = make([]byte, 0, payloadChunk)
	}
	n := len(a.chunk)
	a.chunk = append(a.chunk, p...)
	return a.chunk[n:len(a.chunk):len(a.chunk)]
}

// replayWriter is the sink's publisher and the late-record receiver of a replay.
type replayWriter struct {
	order  *replayOrder
	stats  *ReplayStats
	traced map[[2]string]watermark.Status // last traced status by device and stream
}

func (w *replayWriter) Publish(_ string, _ byte, payload []byte, done func(error)) {
	w.stats.Results++
	line := make([]byte, 0, len(payload)+1)
	w.order.committed(payload, append(append(line, payload...), '\n'))
	done(nil)
}

func (w *replayWriter) Receive(ctx actor.Context) {
	m, ok := ctx.Message().(*Enqueued)
	if !ok {
		return
	}
	device := outbox.UpstreamDevice(m.Queue)
	seqs := make([]uint64, 0, len(m.Entries))
	for _, e := range m.Entries {
		seqs = append(seqs, e.Seq)
		if strings.HasPrefix(e.Topic, "results/") {
			continue // results going upstream are already in the output
		}
		w.stats.Late++
		line := append([]byte(`{"late":`), outbox.WithID(device, e.Seq, e.Payload)...)
		w.order.committed(e.Payload, append(line, "}\n"...))
	}
	ctx.Send(m.ReplyTo, &Delivered{Queue: m.Queue, Seqs: seqs})
}

// watermark writes a stream's status when it differs from the one last written:
// records and periodic emits both report it.
func (w *replayWriter) watermark(device string, m *WatermarkEmitted) {
	id := [2]string{device, m.Stream}
	if last, ok := w.traced[id]; ok && last == m.Status || !ok && m.Status == (watermark.Status{Watermark: watermark.Min}) {
		return
	}
	w.traced[id] = m.Status
	b := appendString([]byte(`{"watermark":{"device":`), device)
	b = append(b, `,"stream":`...)
	b = appendString(b, m.Stream)
	b = append(b, `,"watermark":`...)
	b = appendWatermark(b, m.Status.Watermark)
	b = append(b, `,"idle":`...)
	b = strconv.AppendBool(b, m.Status.Idle)
	b = append(b, `,"at":`...)
	b = strconv.AppendInt(b, m.At, 10)
	w.order.now(append(b, "}}\n"...))
}
