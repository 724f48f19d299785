package persist

import (
	"fmt"
	"strings"
	"testing"
)

func enqueue(t testing.TB, s *Store, queue string, payloads ...string) []uint64 {
	t.Helper()
	b := s.NewBatch()
	var seqs []uint64
	for _, p := range payloads {
		seqs = append(seqs, b.Enqueue(queue, []byte(p)))
	}
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return seqs
}

func dequeue(t testing.TB, s *Store, queue string, seqs ...uint64) {
	t.Helper()
	b := s.NewBatch()
	for _, seq := range seqs {
		b.Dequeue(queue, seq)
	}
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func peekAll(t testing.TB, s *Store, queue string, after uint64) string {
	t.Helper()
	es, err := s.Peek(queue, after, 1000)
	if err != nil {
		t.Fatalf("Peek: %v", err)
	}
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%d:%s", e.Seq, e.Payload))
	}
	return strings.Join(parts, " ")
}

func TestEnqueuedRecordsComeOutOldestFirstUntilDequeued(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	enqueue(t, s, "late/dev", "a", "b")
	enqueue(t, s, "late/other", "x")
	enqueue(t, s, "late/dev", "c")
	if got := peekAll(t, s, "late/dev", 0); got != "1:a 2:b 3:c" {
		t.Errorf("Peek = %q", got)
	}
	if got := peekAll(t, s, "late/dev", 1); got != "2:b 3:c" {
		t.Errorf("Peek after 1 = %q", got)
	}
	if es, _ := s.Peek("late/dev", 0, 2); len(es) != 2 {
		t.Errorf("Peek with max 2 returned %d entries", len(es))
	}
	dequeue(t, s, "late/dev", 2, 99)
	if got := peekAll(t, s, "late/dev", 0); got != "1:a 3:c" {
		t.Errorf("Peek after dequeuing 2 = %q", got)
	}
	if got := peekAll(t, s, "late/other", 0); got != "1:x" {
		t.Errorf("Peek of the other queue = %q", got)
	}
	if got := s.Stats("late/dev"); got != (QueueStats{Records: 2, Bytes: 2, OldestSeq: 1}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestSequenceNumbersKeepIncreasingAcrossReopenEvenWhenTheQueueWasEmptied(t *testing.T) {
	s := openStore(t, Options{})
	seqs := enqueue(t, s, "q", "a", "b", "c")
	dequeue(t, s, "q", seqs...)
	s.NewBatch().Enqueue("q", []byte("never committed"))
	s = reopen(t, s, Options{})
	next := enqueue(t, s, "q", "d")
	if next[0] <= seqs[2] {
		t.Errorf("seq after reopen = %d, want above %d", next[0], seqs[2])
	}
	if got := peekAll(t, s, "q", 0); got != fmt.Sprintf("%d:d", next[0]) {
		t.Errorf("Peek = %q", got)
	}
}

func TestQueueStatsStayExactAcrossReopen(t *testing.T) {
	s := openStore(t, Options{})
	b := s.NewBatch()
	b.Enqueue("q", []byte("12345"))
	b.Enqueue("q", []byte("1"))
	second := b.Enqueue("q", []byte("123"))
	b.Dequeue("q", second) // enqueued and delivered in the same batch
	b.Dequeue("q", second) // twice
	b.Enqueue("r", []byte("1234567"))
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	dequeue(t, s, "q", 1)
	want := map[string]QueueStats{"q": {Records: 1, Bytes: 1, OldestSeq: 2}, "r": {Records: 1, Bytes: 7, OldestSeq: 1}, "none": {}}
	for _, phase := range []string{"before reopen", "after reopen"} {
		for q, w := range want {
			if got := s.Stats(q); got != w {
				t.Errorf("%s: Stats(%q) = %+v, want %+v", phase, q, got, w)
			}
		}
		s = reopen(t, s, Options{})
	}
}

func TestDropOldestDeletesFromTheHeadAndCountsExactly(t *testing.T) {
	tests := []struct {
		name        string
		drop        int
		wantDropped int
		wantPeek    string
		wantStats   QueueStats
	}{
		{"none", 0, 0, "1:a 2:bb 3:ccc", QueueStats{3, 6, 1}},
		{"two of three", 2, 2, "3:ccc", QueueStats{1, 3, 3}},
		{"more than there are", 10, 3, "", QueueStats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, Options{Durability: Memory})
			enqueue(t, s, "q", "a", "bb", "ccc")
			n, err := s.DropOldest("q", tt.drop)
			if err != nil || n != tt.wantDropped {
				t.Errorf("DropOldest = %d, %v; want %d", n, err, tt.wantDropped)
			}
			if got := peekAll(t, s, "q", 0); got != tt.wantPeek {
				t.Errorf("Peek = %q, want %q", got, tt.wantPeek)
			}
			if got := s.Stats("q"); got != tt.wantStats {
				t.Errorf("Stats = %+v, want %+v", got, tt.wantStats)
			}
		})
	}
}

func TestDropOldestWorksAcrossManyTransactions(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	payloads := make([]string, 2500)
	for i := range payloads {
		payloads[i] = "p"
	}
	enqueue(t, s, "q", payloads...)
	if n, err := s.DropOldest("q", 2400); n != 2400 || err != nil {
		t.Fatalf("DropOldest = %d, %v", n, err)
	}
	if got := s.Stats("q"); got != (QueueStats{100, 100, 2401}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestABatchCommittedAfterALaterOneForTheSameQueueIsRejected(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	first, second := s.NewBatch(), s.NewBatch()
	first.Enqueue("q", []byte("a"))
	second.Enqueue("q", []byte("b"))
	if err := s.Commit(second); err != nil {
		t.Fatal(err)
	}
	err := s.Commit(first)
	if err == nil || !strings.Contains(err.Error(), "one writer committing its batches in order") {
		t.Errorf("Commit error = %v", err)
	}
	if got := peekAll(t, s, "q", 0); got != "2:b" {
		t.Errorf("Peek = %q", got)
	}
}
