package actors

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Inbound is one MQTT message as it arrived at processing time At.
type Inbound struct {
	Topic     string
	Payload   []byte
	QoS       byte
	Duplicate bool // the broker says it may have been delivered before
	At        int64
	ack       *ack
	ackSlot   ack           // where ack points: one allocation per message, not two
	rec       RecordDecoded // the record decoded from it, sent on from here for the same reason
}

// RecordDecoded is a reading a source actor accepted, on its way to the window
// actors of its key. It is shared read-only by every window actor it reaches.
type RecordDecoded struct {
	Stream  string // concrete topic
	Key     string
	TS      int64
	Values  []windows.Value // aligned with the stream definition's value fields
	Status  watermark.Status
	ID      uint64 // message id for dedup
	QoS     byte   // QoS 0 is never redelivered, so it needs no dedup mark
	Dup     bool
	Payload []byte
	Arrived int64
	ack     *ack
	// Values points here when the stream reads few fields (the usual case): the
	// values travel in the record's own allocation, not in one of their own.
	valueBuf [inlineValues]windows.Value
}

// inlineValues is how many values a record holds without an allocation.
const inlineValues = 2

// sourceWanted asks the pipeline for the source actor of a topic, spawned if new; the
// answer is its *sourceHandle.
type sourceWanted struct{ topic string }

// routeRecord asks the pipeline to deliver a record to the window actor of a key the
// source has no address for yet; the pipeline answers each with keyBound.
type routeRecord struct {
	win int
	rec *RecordDecoded
	seq uint64 // counts the key's routed records, so the source knows which answer is the last
}

// keyBound gives a source the address of a window actor it feeds. The source sends
// directly only once the answer to its last routed record arrived: records still
// queued at the pipeline would otherwise be overtaken. A nil pid says the key was
// refused (limits.max_keys_per_window).
type keyBound struct {
	id  keyID
	pid *actor.PID
	seq uint64 // the routeRecord answered; 0 when the pipeline introduces a key itself
}

// earlyWanted tells the pipeline that a window actor holds windows changed since
// they last emitted, so it wants the next early firing of its window definition.
type earlyWanted struct {
	plan *windowPlan
	key  string
}

// fireEarly is the early firing a window actor asked for, at processing time Now.
type fireEarly struct{ Now int64 }

// sourceRestarted asks the pipeline for every key the stream fed (keyBound each),
// after the source lost its addresses to a restart.
type sourceRestarted struct{ stream string }

// WatermarkEmitted is a stream's new watermark status, for the window actors it fed.
type WatermarkEmitted struct {
	Stream  string
	Status  watermark.Status
	At      int64
	holders atomic.Int32 // window actors still to apply it, if it is from watermarks
}

// MarkWatermark applies an explicit watermark to a stream, as a punctuation would:
// replay's watermark lines and the end of a replayed input.
type MarkWatermark struct {
	Stream    string // concrete topic; "" marks every stream of the device
	Watermark int64
	At        int64
}

// publishDone is a publish that the broker acknowledged or refused.
type publishDone struct {
	queue string
	entry outboxEntry
	err   error
}

// detachQueue makes the sink hold the confirmations of a queue until a new owner
// sends it an Enqueued: the queue's device is being replaced by a live reload, and
// a confirmation sent to the stopping committer would be lost. Done is closed once
// the sink has sent every earlier confirmation.
type detachQueue struct {
	queue string
	done  chan struct{}
}

// resendOutbox hands the sink a device's result outbox as a starting pipeline finds
// it: the committed entries the sink has not taken are published again, read from the
// store as the sink has room, and confirmations go to replyTo (the committer).
type resendOutbox struct {
	queue   string
	replyTo *actor.PID
}

// FlushNow makes a pipeline flush and commit at once; Done is closed afterwards.
type FlushNow struct{ Done chan struct{} }

// commitWanted tells the pipeline that a window actor holds a result: it is
// published only once committed, so it should not wait for the commit interval.
type commitWanted struct {
	streams []string // that fed the window actor since its last flush; none: flush every actor
	merged  uint64   // not 0: the window actor answered this epoch with Merge, a full flush must follow it
}

// DrainSink asks the sink to close Done once no publish awaits the broker's answer,
// so shutdown can commit the deliveries and a restart does not publish them again.
type DrainSink struct{ Done chan struct{} }

// keyQuiet tells the pipeline that a window actor holds no window and nothing
// uncommitted since its last flush: it may be passivated (pipeline_key_passivate.go).
// activity is the actor's count of records and early firings, so a passivate that
// crosses a newer one is recognised as stale.
type keyQuiet struct {
	id       keyID
	activity uint32
}

// passivateQuery asks a window actor that reported quiet whether it still is; it
// answers keyReady, or keyStaying.
type passivateQuery struct{ activity uint32 }

// keyReady is a window actor's answer to passivateQuery: nothing changed since it
// reported quiet, and what it flushed is committed.
type keyReady struct{ id keyID }

// passivate asks a window actor to stop once the unbinds sources it was fed by have
// confirmed (unbound) that they send it nothing more, if it is still quiet.
type passivate struct {
	activity uint32
	unbinds  int32
}

// unbind asks a source to stop sending to a window actor; it answers the window actor
// itself with unbound, after anything it sent it before.
type unbind struct {
	id  keyID
	pid *actor.PID
}

// unbound is a source's answer to unbind.
type unbound struct{}

// keyPassivated is a window actor's answer to passivate: it is still quiet, and the
// pipeline may stop it unless something reached it meanwhile.
type keyPassivated struct{ id keyID }

// keyStaying is a window actor's answer to passivate when it is no longer quiet, or
// its last flush is not durable yet (retry).
type keyStaying struct {
	id       keyID
	retry    bool
	activity uint32
}

// sourceQuiet tells the pipeline that a source's stream is idle and nothing more
// happens to it with time alone: it may be passivated (source_passivate.go).
type sourceQuiet struct {
	topic string
	h     *sourceHandle
}

// passivateSource asks a source to stop if it is still quiet.
type passivateSource struct{}

// sourcePassivated is a source's answer to passivateSource: it is still quiet, and
// the pipeline may stop it unless something was sent to it meanwhile.
type sourcePassivated struct {
	topic       string
	received    uint64 // messages it took from the router
	lastArrival int64  // of its last record
}

// sourceStaying is a source's answer to passivateSource when it is no longer quiet,
// or what it saved last is not durable yet (retry).
type sourceStaying struct {
	topic string
	retry bool
}

// explainWanted asks a pipeline, from the daemon's /explain and /status, for the state
// of one key of window definition win; the pipeline passes it on to the key's
// window actor, which answers with a keyExplained of its own state, or answers
// itself with an empty one when the key has no window actor (passivated, not
// restored yet, never seen).
type explainWanted struct {
	win int
	key string
}

// keyExplained answers explainWanted; state is nil when the key has no window actor,
// and restoring says that it has saved state not restored yet since the start.
type keyExplained struct {
	state     *explain.KeyState
	restoring bool
}

// summariesWanted asks a pipeline for the oldest open window and the next firing
// of each of its window definitions (window_summary.go); it answers a []windowSummary.
type summariesWanted struct{}

// feedsWanted asks a pipeline for the keys a concrete topic feeds, whose window
// actors run; it answers a *feeds.
type feedsWanted struct{ topic string }

// feeds answers feedsWanted: the keys (window name and key) a topic feeds, first
// fed first, at most maxFeeds of them, and how many there are.
type feeds struct {
	keys  [][2]string
	total int
}
