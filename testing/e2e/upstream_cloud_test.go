package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

// upRecord is one late record as the cloud side receives it.
type upRecord struct {
	ID      string `json:"id"`
	Device  string `json:"device"`
	Stream  string `json:"stream"`
	Reason  string `json:"reason"`
	Payload struct {
		N int `json:"n"`
	} `json:"payload"`

	raw   string    // the record as received, to compare duplicates
	topic string    // of the message that carried it
	at    time.Time // when that message arrived
}

// upCloud is the cloud side: a QoS 1 subscriber with a persistent session on the
// upstream broker, so what edged ships while the subscriber is away is queued for it.
// The handler only keeps the messages (decoding them there would slow the receiving
// side down and skew the rate it measures); they are decoded when asked for.
type upCloud struct {
	t       testing.TB
	url, id string
	filter  string
	client  *mqtt.Client

	mu       sync.Mutex
	messages []upMessage // not yet decoded
	records  []upRecord
	seen     map[string]struct{} // ids
	bad      []string
}

// upMessage is one message as it arrived.
type upMessage struct {
	topic   string
	payload []byte
	at      time.Time
}

// upSubscribe connects the cloud subscriber to filter on the broker at url; its
// session outlives disconnect.
func upSubscribe(t testing.TB, url, id, filter string) *upCloud {
	t.Helper()
	c := &upCloud{t: t, url: url, id: id, filter: filter, seen: map[string]struct{}{}}
	t.Cleanup(c.disconnect)
	c.connect()
	return c
}

func (c *upCloud) connect() {
	c.t.Helper()
	cl, err := mqtt.Connect(context.Background(), mqtt.Options{
		URL: c.url, ClientID: c.id, CleanSession: false,
		Subscriptions: []mqtt.Subscription{{Filter: c.filter, QoS: 1}},
		Handler:       c.handle,
		Logger:        upQuiet,
	})
	if err != nil {
		c.t.Fatalf("cloud subscriber: %v", err)
	}
	c.client = cl
}

// disconnect leaves the session on the broker, which queues what arrives meanwhile.
func (c *upCloud) disconnect() {
	if c.client != nil {
		c.client.Close(time.Second)
		c.client = nil
	}
}

func (c *upCloud) handle(m *mqtt.Message) {
	at := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, upMessage{topic: m.Topic, payload: m.Payload, at: at})
}

// decode turns the messages received since the last call into records: each
// message is a record or a JSON array of records. The caller holds mu.
func (c *upCloud) decode() {
	for _, m := range c.messages {
		var raws []json.RawMessage
		if len(m.payload) > 0 && m.payload[0] == '[' {
			if err := json.Unmarshal(m.payload, &raws); err != nil {
				c.bad = append(c.bad, fmt.Sprintf("%s: not a JSON array of records: %v", m.topic, err))
				continue
			}
		} else {
			raws = []json.RawMessage{m.payload}
		}
		for _, raw := range raws {
			var r upRecord
			if err := json.Unmarshal(raw, &r); err != nil {
				c.bad = append(c.bad, fmt.Sprintf("%s: not a record: %v: %s", m.topic, err, raw))
				continue
			}
			r.raw, r.topic, r.at = string(raw), m.topic, m.at
			c.records = append(c.records, r)
			c.seen[r.ID] = struct{}{}
		}
	}
	c.messages = c.messages[:0]
}

// snapshot returns the records received so far, in arrival order.
func (c *upCloud) snapshot() []upRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.decode()
	if len(c.bad) > 0 {
		c.t.Fatalf("the cloud received %d malformed messages, first: %s", len(c.bad), c.bad[0])
	}
	return slices.Clone(c.records)
}

// distinct counts the different ids received so far.
func (c *upCloud) distinct() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.decode()
	return len(c.seen)
}

// upSeq splits an id "<device>-<seq>".
func upSeq(id string) (device string, seq uint64, err error) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, fmt.Errorf("id %q is not <device>-<seq>", id)
	}
	seq, err = strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil || seq == 0 {
		return "", 0, fmt.Errorf("id %q is not <device>-<seq>", id)
	}
	return id[:i], seq, nil
}

// upCheckDelivery checks what the cloud received against want, the readings (by
// n) that must arrive as too-late records, per device:
//   - every record of a device carries an id of that device and arrives on
//     {prefix}/{device}/late/{stream};
//   - in arrival order, ignoring repeats, a device's seqs strictly increase;
//   - the seqs are 1..N with none missing;
//   - a repeated id carries the identical record;
//   - the readings are exactly want, each under one id.
func upCheckDelivery(t testing.TB, recs []upRecord, cloudPrefix string, want map[string][]int) {
	t.Helper()
	type state struct {
		byID    map[string]string
		last    uint64
		seqs    []uint64
		readers map[int]string // reading n -> id
		dups    int
	}
	devs := map[string]*state{}
	for d := range want {
		devs[d] = &state{byID: map[string]string{}, readers: map[int]string{}}
	}
	errs := 0
	report := func(format string, args ...any) {
		if errs++; errs <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, r := range recs {
		dev, seq, err := upSeq(r.ID)
		if err != nil {
			report("%v", err)
			continue
		}
		s := devs[dev]
		switch {
		case s == nil:
			report("record %s of an unexpected device", r.ID)
			continue
		case r.Device != dev:
			report("record %s says device %q", r.ID, r.Device)
		case r.topic != cloudPrefix+"/"+dev+"/late/"+r.Stream:
			report("record %s arrived on %q, want %s/%s/late/%s", r.ID, r.topic, cloudPrefix, dev, r.Stream)
		case r.Reason != "too_late":
			report("record %s: reason %q, want too_late", r.ID, r.Reason)
		}
		if prev, ok := s.byID[r.ID]; ok {
			s.dups++
			if prev != r.raw {
				report("duplicate %s differs:\n first %s\n again %s", r.ID, prev, r.raw)
			}
			continue
		}
		s.byID[r.ID] = r.raw
		if seq <= s.last {
			report("device %s: %s arrived after seq %d: out of order", dev, r.ID, s.last)
		}
		s.last = max(s.last, seq)
		s.seqs = append(s.seqs, seq)
		if other, ok := s.readers[r.Payload.N]; ok {
			report("reading %d of %s arrived twice, as %s and %s", r.Payload.N, dev, other, r.ID)
		}
		s.readers[r.Payload.N] = r.ID
	}
	for dev, s := range devs {
		slices.Sort(s.seqs)
		for i, seq := range s.seqs {
			if seq != uint64(i+1) {
				report("device %s: ids run 1..%d but the %dth is %s-%d: %d ids missing", dev, s.last, i+1, dev, seq, int(s.last)-len(s.seqs))
				break
			}
		}
		missing := 0
		for _, n := range want[dev] {
			if _, ok := s.readers[n]; !ok {
				if missing++; missing <= 5 {
					report("device %s: too-late reading %d never arrived upstream", dev, n)
				}
			}
		}
		if extra := len(s.readers) + missing - len(want[dev]); extra > 0 {
			report("device %s: %d records upstream that are not too-late readings", dev, extra)
		}
		t.Logf("device %s: %d records, %d distinct ids, %d duplicates, %d missing", dev, len(s.seqs)+s.dups, len(s.seqs), s.dups, missing)
	}
}
