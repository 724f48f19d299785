package status

import (
	"maps"
	"time"
)

// A gateway spends most of its life at rest: every stream idle or passivated and no
// counter moving. Sampling every Every then gathers the same registry again and
// again, and on a small device that wake-up is a good part of what edged costs at
// rest. So the sampler samples every RestEvery while at rest, a stream that comes
// back (a topic that turns active, is reactivated or appears) wakes it at once, and
// /status samples on demand when its last sample is older than Every.

// RestEvery is how often the sampler samples at rest: the lag history keeps a
// column that often.
const RestEvery = 30 * time.Second

// Next is how long the sampler waits for its next sample: Every, or RestEvery when
// the last sample found the daemon at rest.
func (s *Sampler) Next() time.Duration {
	if s.Resting() {
		return RestEvery
	}
	return Every
}

// Resting reports whether the last sample found every topic idle or passivated,
// none with a record since the sample before, and no counter of the registry moved.
func (s *Sampler) Resting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resting
}

// still reports whether no counter of cur moved since prev.
func (cur *sample) still(prev *sample) bool {
	return prev != nil && cur.sent == prev.sent && cur.commitCount == prev.commitCount &&
		maps.Equal(cur.firings, prev.firings) && maps.Equal(cur.updates, prev.updates) && maps.Equal(cur.late, prev.late)
}

// resting reports whether the topic is idle or passivated and counted no record
// since the previous sample, before the sampler takes this sample's count.
func (t *Topic) resting() bool {
	return t.sampled && t.Records.load() == t.prevRecords && (t.Idle.Get() == 1 || t.Passivated())
}

// Woken receives when a stream comes back while the sampler may be resting: a
// topic turned active, was reactivated or appeared.
func (s *Stats) Woken() <-chan struct{} { return s.wake }

// wakeSampler tells the sampler that a stream came back; it never blocks.
func (s *Stats) wakeSampler() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Refresh samples at now unless the last sample is younger than Every: /status
// answers with the present even while the sampler rests.
func (s *Sampler) Refresh(now time.Time) {
	s.sampling.Lock()
	defer s.sampling.Unlock()
	s.mu.Lock()
	fresh := s.prev != nil && now.UnixMilli()-s.prev.at < Every.Milliseconds()
	s.mu.Unlock()
	if !fresh {
		s.sample(now)
	}
}
