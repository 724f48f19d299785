package commit

// Pending collects an actor's changes until its next flush: the main unit (state,
// results, the records it applied), the main units closed before it because they
// were full (oldest first, so later state overwrites earlier), and, apart from them,
// units of records that went to an outbox, each holding its records' dedup marks and
// acks, so every record's effect stays atomic with its mark.
//
// An actor's first change after a flush takes the next flush's reply from
// replyPool: the reply and the unit it will most likely carry are one object. Until
// then main and reply are nil, so an idle actor, most of a gateway's, holds neither.
type Pending struct {
	main  *Unit       // nil until a change since the last flush
	reply *Flushed    // the next flush's reply, whose own unit is the first main unit; nil until taken
	extra *extraUnits // nil until a flush has more units than its main one; kept for the next
}

// NewPending returns a Pending whose main unit is started apart from a reply, for a
// holder that hands its units on with Take and never answers a flush.
func NewPending() Pending { return Pending{main: &Unit{}} }

// extraUnits are the units of a flush besides its main one, which most flushes of
// most actors never have.
type extraUnits struct {
	closed []*Unit
	spill  []*Unit
}

func (p *Pending) more() *extraUnits {
	if p.extra == nil {
		p.extra = &extraUnits{}
	}
	return p.extra
}

// Main returns the main unit, nil while no change since the last flush started it.
func (p *Pending) Main() *Unit { return p.main }

// Unit returns the main unit, starting it at the first change since the last flush.
func (p *Pending) Unit() *Unit {
	if p.main == nil {
		if p.reply == nil {
			p.reply = takeReply()
			p.main = &p.reply.main
		} else {
			p.main = NewUnit()
		}
	}
	return p.main
}

// Empty reports whether the actor holds no change for its next flush.
func (p *Pending) Empty() bool {
	return (p.main == nil || p.main.Empty()) && (p.extra == nil || len(p.extra.closed) == 0 && len(p.extra.spill) == 0)
}

// MainFull is Unit().Full, for a main unit that may not be started yet.
func (p *Pending) MainFull(extra, extraBytes int) bool {
	if p.main == nil {
		return extra >= maxUnitChanges || extraBytes >= maxUnitBytes
	}
	return p.main.Full(extra, extraBytes)
}

// SpillUnit returns a unit with room for one more outbox record.
func (p *Pending) SpillUnit() *Unit {
	x := p.more()
	if n := len(x.spill); n > 0 && !x.spill[n-1].Full(0, 0) {
		return x.spill[n-1]
	}
	u := &Unit{}
	x.spill = append(x.spill, u)
	return u
}

// Last returns the unit that Take will return last: it commits after every other
// unit of this flush.
func (p *Pending) Last() *Unit {
	if x := p.extra; x != nil && len(x.spill) > 0 {
		return x.spill[len(x.spill)-1]
	}
	return p.Unit()
}

// CloseMain moves a non-empty main unit to closed and starts a new one.
func (p *Pending) CloseMain() {
	if p.main != nil && !p.main.Empty() {
		x := p.more()
		x.closed = append(x.closed, p.main)
		p.main = NewUnit()
	}
}

// Take returns the non-empty units, in the order they must commit, and starts afresh.
func (p *Pending) Take() []*Unit {
	units := p.takeInto(nil)
	if p.main == nil {
		p.main = NewUnit()
	}
	return units
}

// Flushed is the committer's Flushed for epoch holding the units taken, and starts
// afresh with neither a reply nor a main unit. An actor with no change answers with
// a reply taken now: the committer puts it back on receipt.
func (p *Pending) Flushed(epoch uint64, extra int) *Flushed {
	f := p.reply
	if f == nil {
		f = takeReply()
	}
	f.Epoch, f.Extra = epoch, extra
	f.Units = p.takeInto(f.one[:0])
	p.reply, p.main = nil, nil
	return f
}

// takeInto appends the non-empty units to dst in the order they must commit, and
// empties the lists, which are kept for the next flush: dst is the only copy handed
// on. A non-empty main unit is taken too, leaving main nil.
func (p *Pending) takeInto(dst []*Unit) []*Unit {
	x := p.extra
	if x != nil {
		dst = append(dst, x.closed...)
	}
	if p.main != nil && !p.main.Empty() {
		dst = append(dst, p.main)
		p.main = nil
	}
	if x != nil {
		dst = append(dst, x.spill...)
		clear(x.closed)
		clear(x.spill)
		x.closed, x.spill = x.closed[:0], x.spill[:0]
	}
	return dst
}
