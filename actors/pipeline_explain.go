package actors

import "github.com/asynkron/protoactor-go/actor"

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
