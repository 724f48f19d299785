package commit

import (
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/persist"
)

// lostReplies runs a committer under a parent that ignores what it is told, on a
// store in memory; now is the processing time (ms) the epochs close at.
type lostReplies struct {
	store *persist.Store
	pid   *actor.PID
	root  *actor.RootContext
	now   int64
}

func newLostReplies(t *testing.T) *lostReplies {
	t.Helper()
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := &lostReplies{store: store, now: 1_000_000}
	deps := &Deps{
		Store: store, Log: slog.New(slog.DiscardHandler), Failures: &Failures{},
		Commits:       prometheus.NewCounter(prometheus.CounterOpts{Name: "c"}),
		CommitErrors:  prometheus.NewCounter(prometheus.CounterOpts{Name: "e"}),
		CommitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "s"}),
		TellCommitted: true,
	}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(system.Shutdown)
	h.root = system.Root
	ready := make(chan *actor.PID, 1)
	h.root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if _, ok := ctx.Message().(*actor.Started); ok {
			ready <- ctx.Spawn(actor.PropsFromProducer(func() actor.Actor { return NewCommitter(deps, "dev") }))
		}
	}))
	h.pid = <-ready
	return h
}

func (h *lostReplies) advance(d time.Duration) { h.now += d.Milliseconds() }

// reply sends one actor's answer to epoch: a unit with one window state under key.
func (h *lostReplies) reply(epoch uint64, key string) {
	u := NewUnit()
	u.Puts = append(u.Puts, WindowPut{Key: persist.WindowKey{Device: "dev", Window: "w", Key: key}, State: []byte(key)})
	h.root.Send(h.pid, &Flushed{Epoch: epoch, Units: []*Unit{u}})
}

// close closes epoch, expecting n answers, and returns what closes once it is committed.
func (h *lostReplies) close(epoch uint64, n int) chan struct{} {
	done := make(chan struct{})
	h.root.Send(h.pid, &EpochClosed{Epoch: epoch, Expect: n, Full: true, Done: done, At: h.now})
	return done
}

func (h *lostReplies) stored(t *testing.T, key string) bool {
	t.Helper()
	ks, _, err := h.store.LoadKeys("dev", []persist.KeyName{{Window: "w", Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	return ks[0] != nil
}

func wait(t *testing.T, done chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was not committed", what)
	}
}

// An epoch whose answer is slow waits for it however many epochs close after it:
// committing the others' units without it would save the sources' watermarks ahead
// of records whose acks the slow actor holds.
func TestAnEpochWaitsForASlowAnswerWhileLaterEpochsClose(t *testing.T) {
	h := newLostReplies(t)
	h.close(1, 2)
	h.reply(1, "fast")
	var last chan struct{}
	for e := uint64(2); e <= maxOpenEpochs+4; e++ {
		last = h.close(e, 1)
		h.reply(e, "later")
		h.advance(time.Second)
	}
	h.reply(1, "slow")
	wait(t, last, "the last epoch")
	if !h.stored(t, "slow") {
		t.Error("the epochs were committed without the slow answer, and it still waits")
	}
}

// An answer lost for LostReplyAfter (its actor restarted mid-flush) is given up on
// once more than maxOpenEpochs epochs wait: the device does not stall for good.
func TestAnEpochIsGivenUpOnOnceItsAnswerIsLostForLostReplyAfter(t *testing.T) {
	h := newLostReplies(t)
	first := h.close(1, 2)
	h.reply(1, "fast")
	for e := uint64(2); e <= maxOpenEpochs; e++ {
		h.close(e, 1)
		h.reply(e, "later")
	}
	h.advance(LostReplyAfter)
	last := h.close(maxOpenEpochs+1, 1)
	h.reply(maxOpenEpochs+1, "last")
	wait(t, first, "the epoch that lost an answer")
	wait(t, last, "the last epoch")
	if !h.stored(t, "fast") || !h.stored(t, "last") {
		t.Error("the epochs after the given-up one were not committed")
	}
}
