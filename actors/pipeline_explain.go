package actors

import (
	"cmp"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/windows"
)

// What a pipeline answers for the daemon's /explain and /status: a key's state
// from its window actor, its window definitions' summaries, the keys a topic feeds.
// It never starts a window actor to answer: a key without one is answered from
// the store by the daemon.

// maxFeeds bounds the keys /explain lists for one topic.
const maxFeeds = 100

// onExplainWanted passes the request on to the key's window actor, which answers
// the asker itself, or answers that the key has none.
func (p *pipeline) onExplainWanted(ctx actor.Context, m *explainWanted) {
	if k := p.keys[keyID{m.win, m.key}]; k != nil {
		ctx.Forward(k.pid)
		return
	}
	ctx.Respond(&keyExplained{restoring: p.pending.key(p.plan.windows[m.win].cfg.Name, m.key) >= 0})
}

// feedsOf lists the live keys a topic feeds.
func (p *pipeline) feedsOf(topic string) *feeds {
	f := &feeds{}
	for k := range p.fedBy.keys(topic) {
		f.total++
		if len(f.keys) < maxFeeds {
			f.keys = append(f.keys, [2]string{p.plan.windows[k.win].cfg.Name, k.key})
		}
	}
	return f
}

// windowSummary is a window definition's oldest open window and next firing over
// its live keys; a zero Window where there is none.
type windowSummary struct {
	win                int
	oldestKey, nextKey string
	oldest, next       windows.Window
}

// summaries takes the least summaries over the pipeline's live keys, per window
// definition; ties go to the lower key, so the answer does not depend on the
// order of a map.
func (p *pipeline) summaries() []windowSummary {
	out := make([]windowSummary, len(p.plan.windows))
	for i := range out {
		out[i].win = i
	}
	for id, k := range p.keys {
		s := k.summary.Load()
		if s == nil {
			continue
		}
		o := &out[id.win]
		if o.oldest == (windows.Window{}) || cmp.Or(cmp.Compare(s.oldest.Start, o.oldest.Start), cmp.Compare(s.oldest.End, o.oldest.End), cmp.Compare(id.key, o.oldestKey)) < 0 {
			o.oldest, o.oldestKey = s.oldest, id.key
		}
		if s.next != (windows.Window{}) && (o.next == (windows.Window{}) || cmp.Or(cmp.Compare(s.next.End, o.next.End), cmp.Compare(s.next.Start, o.next.Start), cmp.Compare(id.key, o.nextKey)) < 0) {
			o.next, o.nextKey = s.next, id.key
		}
	}
	return out
}
