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
// arrives meanwhile is read at once. A message waits at most readPace longer, and
// only while messages follow each other closer than that; the first after a pause is
// read as it arrives.

// readPace is the least time between two reads when the first came back short.
const readPace = time.Millisecond

// pacedReader is the read half of a bufferedConn, under its buffer.
type pacedReader struct {
	r     io.Reader
	now   func() time.Time
	sleep func(time.Duration)
	short bool       // the last read did not fill its buffer
	at    time.Time  // when the last read returned
	watch *holdWatch // told when a read starts and ends; may be nil
}

func newPacedReader(r io.Reader) *pacedReader {
	return &pacedReader{r: r, now: time.Now, sleep: time.Sleep}
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.short {
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
	p.short, p.at = n < len(b), p.now()
	return n, err
}
