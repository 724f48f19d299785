package actors

import "github.com/asynkron/protoactor-go/actor"

// onEarlyWanted queues a window actor for its window definition's next early firing:
// the first tick at or after the next multiple of the interval, so that a replay
// fires at the same processing times.
func (p *pipeline) onEarlyWanted(m *earlyWanted) {
	win := -1
	for i := range p.plan.windows {
		if &p.plan.windows[i] == m.plan {
			win = i
		}
	}
	k := p.keys[keyID{win, m.key}]
	every := m.plan.op.Early
	if k == nil || k.early || every <= 0 {
		return
	}
	if p.early == nil {
		p.early = make([]earlySchedule, len(p.plan.windows))
	}
	s := &p.early[win]
	if s.next <= p.now {
		s.next = (p.now/every + 1) * every
	}
	k.early = true
	s.keys = append(s.keys, k)
}

// fireEarly sends each queued window actor its early firing when its definition's
// interval comes round; its results commit with the next flush. The cost follows the
// keys that changed, not the keys that exist.
func (p *pipeline) fireEarly(ctx actor.Context, now int64) {
	p.now = max(p.now, now)
	for win := range p.early {
		s := &p.early[win]
		if len(s.keys) == 0 || now < s.next {
			continue
		}
		f := &fireEarly{Now: now}
		for i, k := range s.keys {
			k.early = false
			if !k.touched {
				k.touched = true
				p.touched = append(p.touched, k)
			}
			ctx.Send(k.pid, f)
			s.keys[i] = nil
		}
		s.keys = s.keys[:0]
	}
}
