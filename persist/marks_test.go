package persist

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// testClock is a wall clock a test moves; the sealer reads it from its goroutine.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

// newTestClock starts at the beginning of the current segment: Badger expires
// entries by the real clock, so the test clock stays near it.
func newTestClock() *testClock {
	return &testClock{t: time.Now().Truncate(markSegment)}
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func commitMarks(t *testing.T, s *Store, key string, ids ...uint64) {
	t.Helper()
	b := s.NewBatch()
	for _, id := range ids {
		b.PutMark("dev", "1m", key, id)
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
}

func hasMark(t *testing.T, s *Store, key string, id uint64) bool {
	t.Helper()
	ok, err := s.HasMark("dev", "1m", key, id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// waitSealed waits until no segment before the clock's current one has logs.
func waitSealed(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.sealer.logs.before(segmentOf(s.now()))) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the sealer")
		}
		time.Sleep(time.Millisecond) // polling a condition with a deadline
	}
}

// segmentKeys counts the keys with tag, and the fingerprints in their values.
func segmentKeys(t *testing.T, s *Store, tag byte) (keys, fps int) {
	t.Helper()
	err := s.db.View(func(txn *badger.Txn) error {
		return s.eachValue(txn, []byte{tag}, 1, func(_, v []byte) (bool, error) {
			keys++
			fps += len(v) / 8
			return false, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys, fps
}

func ids(from, to uint64) []uint64 {
	var r []uint64
	for id := from; id < to; id++ {
		r = append(r, id)
	}
	return r
}

func TestAMarkIsFoundInItsSegmentBeforeAndAfterSealingAndNotAfterTheTTL(t *testing.T) {
	const ttl = time.Minute
	clock := newTestClock()
	s := openStore(t, Options{Durability: Memory, DedupTTL: ttl, clock: clock.now})
	commitMarks(t, s, "k", ids(0, 1000)...)
	for _, tt := range []struct {
		key  string
		id   uint64
		want bool
	}{{"k", 0, true}, {"k", 999, true}, {"k", 1000, false}, {"other", 0, false}} {
		if got := hasMark(t, s, tt.key, tt.id); got != tt.want {
			t.Errorf("before sealing: HasMark(%s, %d) = %v, want %v", tt.key, tt.id, got, tt.want)
		}
	}
	if ok, _ := s.HasMark("dev2", "1m", "k", 0); ok {
		t.Error("another device's mark was found")
	}

	clock.add(markSegment)
	commitMarks(t, s, "k", 5000) // the first commit of a segment has the one before sealed
	waitSealed(t, s)
	if logs, _ := segmentKeys(t, s, tagMarkLog); logs != 1 {
		t.Errorf("%d logs after sealing, want the current segment's one", logs)
	}
	chunks, fps := segmentKeys(t, s, tagMarkChunk)
	if chunks != 16 || fps != 1000 {
		t.Errorf("sealed into %d chunks of %d marks in all, want 16 of 1,000", chunks, fps)
	}
	for id := range uint64(1000) {
		if !hasMark(t, s, "k", id) {
			t.Fatalf("mark %d is not found once sealed", id)
		}
	}
	for id := uint64(1000); id < 2000; id++ {
		if hasMark(t, s, "k", id) {
			t.Fatalf("mark %d, never written, is found", id)
		}
	}
	if !hasMark(t, s, "k", 5000) {
		t.Error("the current segment's mark is not found")
	}

	// A mark lives at least the TTL, at most the TTL and a segment.
	clock.add(ttl - markSegment)
	if !hasMark(t, s, "k", 0) || !hasMark(t, s, "k", 5000) {
		t.Error("marks are gone before the TTL")
	}
	clock.add(2 * markSegment)
	if hasMark(t, s, "k", 0) || hasMark(t, s, "k", 5000) {
		t.Error("marks are found after the TTL and a segment")
	}
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(markSealKey(segmentOf(clock.now()) - uint64((ttl+2*markSegment)/markSegment)))
		if err != nil {
			return err
		}
		if got, want := int64(item.ExpiresAt()), clock.now().Add(-markSegment).Unix(); got != want {
			t.Errorf("the sealed segment expires at %d, want %d", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestACrashBetweenWritingASealAndDeletingItsLogsLosesNothingAndSealingAgainIsHarmless(t *testing.T) {
	clock := newTestClock()
	s := openStore(t, Options{Durability: Memory, clock: clock.now})
	s.sealer.close() // the test seals by hand
	seg := segmentOf(clock.now())
	commitMarks(t, s, "k", 1, 2, 3)
	commitMarks(t, s, "k", 3, 4) // a redelivery applied again counts in the chunk once
	clock.add(markSegment)
	if _, err := s.writeSeal(seg); err != nil {
		t.Fatal(err)
	}
	// The crash: the chunks are written, the logs not deleted.
	if logs, _ := segmentKeys(t, s, tagMarkLog); logs != 2 {
		t.Fatalf("%d logs, want both", logs)
	}
	for id := uint64(1); id <= 4; id++ {
		if !hasMark(t, s, "k", id) {
			t.Errorf("mark %d not found between the seal and its delete", id)
		}
	}
	if err := s.sealOver(nil, &s.sealer.logs); err != nil { // after the restart
		t.Fatal(err)
	}
	logs, _ := segmentKeys(t, s, tagMarkLog)
	chunks, fps := segmentKeys(t, s, tagMarkChunk)
	if logs != 0 || chunks != 1 || fps != 4 {
		t.Errorf("sealed again: %d logs, %d chunks of %d marks; want 0, 1 of 4", logs, chunks, fps)
	}
	for id := uint64(1); id <= 4; id++ {
		if !hasMark(t, s, "k", id) {
			t.Errorf("mark %d not found after sealing again", id)
		}
	}
}

func TestMarksLoggedAfterTheClockSteppedBackAreMergedIntoTheirSealedSegment(t *testing.T) {
	clock := newTestClock()
	s := openStore(t, Options{Durability: Memory, clock: clock.now})
	s.sealer.close()
	commitMarks(t, s, "k", ids(0, 200)...)
	clock.add(markSegment)
	if err := s.sealOver(nil, &s.sealer.logs); err != nil {
		t.Fatal(err)
	}
	clock.add(-markSegment)
	commitMarks(t, s, "k", ids(200, 300)...)
	clock.add(markSegment)
	if err := s.sealOver(nil, &s.sealer.logs); err != nil {
		t.Fatal(err)
	}
	chunks, fps := segmentKeys(t, s, tagMarkChunk)
	if logs, _ := segmentKeys(t, s, tagMarkLog); logs != 0 || chunks != 4 || fps != 300 {
		t.Errorf("%d logs, %d chunks of %d marks; want 0, the first seal's 4 of 300", logs, chunks, fps)
	}
	for id := range uint64(300) {
		if !hasMark(t, s, "k", id) {
			t.Fatalf("mark %d not found", id)
		}
	}
}

func TestARestartSealsTheSegmentsItFindsUnsealed(t *testing.T) {
	clock := newTestClock()
	o := Options{Durability: Process, clock: clock.now}
	s := openStore(t, o)
	commitMarks(t, s, "k", 7)
	s = reopen(t, s, o)
	if !hasMark(t, s, "k", 7) {
		t.Error("a mark logged before a restart in the same segment is not found")
	}
	clock.add(markSegment)
	s = reopen(t, s, o)
	waitSealed(t, s)
	if chunks, _ := segmentKeys(t, s, tagMarkChunk); chunks != 1 || !hasMark(t, s, "k", 7) {
		t.Errorf("after the restart: %d chunks, mark found %v; want 1 and found", chunks, hasMark(t, s, "k", 7))
	}
}

func TestMarksOfTheOldLayoutAreFoundUntilTheyExpire(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.SetEntry(badger.NewEntry(markKey(nil, "dev", "1m", "k", 42), nil).WithTTL(time.Hour))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hasMark(t, s, "k", 42) || hasMark(t, s, "k", 43) {
		t.Error("the old layout's mark 42 is not found, or 43 is")
	}
}

func TestMarkKeysDescribeThemselves(t *testing.T) {
	for k, want := range map[string]string{
		string(markLogKey(3, 9)):        "l/3/9",
		string(markSealKey(3)):          "h/3",
		string(markChunkKey(1, 128, 3)): "f/1/128/3",
	} {
		if got := describeKey([]byte(k)); got != want {
			t.Errorf("describeKey(%x) = %q, want %q", k, got, want)
		}
	}
	if got := chunkPrefix(binary.BigEndian.Uint64([]byte{0xAB, 1, 2, 3, 4, 5, 6, 7}), 4); got != 0xA0 {
		t.Errorf("chunkPrefix with 4 bits = %#x, want 0xa0", got)
	}
}
