package mqtt

import (
	"io"
	"time"
)

// Under a steady stream of messages each read(2) of the connection returned about
// one message, and the next found nothing yet and parked the reader in the network
// poller until the broker's next write woke it: two reads and a wake-up per message
// on the gateway's CPU, the largest block of edged's profile. A paced reader lets a
// read that came back short be followed by the next only readPace later, so what
// arrives meanwhile is read at once. It paces only while reads come back closer
// together than paceWithin: when messages come further apart than the pace, the
// wait gathers nothing and is one more wake-up per message. A message waits at most
// readPace longer, and only while messages follow each other closely; the first
// after a pause is read as it arrives.

// readPace is the least time between two reads when the first came back short.
const readPace = time.Millisecond

// paceWithin is how close together two reads must have come back for the next to
// be paced.
const paceWithin = 2 * readPace

// pacedReader is the read half of a bufferedConn, under its buffer.
type pacedReader struct {
	r     io.Reader
	now   func() time.Time
	sleep func(time.Duration)
	short bool          // the last read did not fill its buffer
	at    time.Time     // when the last read returned
	gap   time.Duration // from the read before it to the last read
	watch *holdWatch    // told when a read starts and ends; may be nil
}

func newPacedReader(r io.Reader) *pacedReader {
	return &pacedReader{r: r, now: time.Now, sleep: time.Sleep}
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.short && p.gap < paceWithin {
		if wait := readPace - p.now().Sub(p.at); wait > 0 {
			p.sleep(wait)
		}
	}
	if p.watch != nil {
		p.watch.entering()
	}
	n, err := p.r.Read(b)
	if p.watch != nil {
		p.watch.leaving()
	}
	now := p.now()
	p.short, p.gap, p.at = n < len(b), now.Sub(p.at), now
	return n, err
}
