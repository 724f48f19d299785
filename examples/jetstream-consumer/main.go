// Command jetstream-consumer is the cloud side of a fleet of edged gateways in
// a few lines: it reads the records the gateways store in a JetStream stream and
// keeps the table they describe — each window's latest revision, retracted
// windows deleted, each late record once — then prints it.
//
//	go run ./examples/jetstream-consumer -url nats://hub:4222 -stream EDGED
//
// It reads the stream from its start with an ordered consumer, so running it again
// rebuilds the same table: applying a record twice changes nothing. A real
// consumer would keep a durable consumer and write to its database with the
// same rule (docs/semantics.md, "The consumer rule").
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	url := flag.String("url", nats.DefaultURL, "the NATS server")
	stream := flag.String("stream", "EDGED", "the stream edged publishes to")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t, err := load(ctx, *url, *stream)
	if err != nil {
		log.Fatal(err)
	}
	if err := write(os.Stdout, t); err != nil {
		log.Fatal(err)
	}
}

// load applies every message the stream holds now to a new table.
func load(ctx context.Context, url, stream string) (*Table, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("looking up stream %s: %w", stream, err)
	}
	last := s.CachedInfo().State.LastSeq
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, err
	}
	t := NewTable()
	for seen := uint64(0); seen < last; {
		batch, err := cons.Fetch(500, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return nil, err
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, err := m.Metadata()
			if err != nil {
				return nil, err
			}
			seen = meta.Sequence.Stream
			if err := t.Apply(m.Data()); err != nil {
				log.Printf("skipping message %d on %s: %v", seen, m.Subject(), err)
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, err
		}
		if n == 0 {
			break // the rest was deleted from the stream meanwhile
		}
	}
	return t, nil
}

// write prints the live rows, then the late records' ids, one JSON line each.
func write(w io.Writer, t *Table) error {
	enc := json.NewEncoder(w)
	for _, k := range t.Rows() {
		r, _ := t.Row(k)
		if err := enc.Encode(struct {
			RowKey
			Row
		}{k, r}); err != nil {
			return err
		}
	}
	for _, id := range t.LateIDs() {
		if err := enc.Encode(map[string]string{"late": id}); err != nil {
			return err
		}
	}
	return nil
}
