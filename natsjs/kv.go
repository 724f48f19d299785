package natsjs

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// KV is a JetStream key-value bucket on a publisher's connection.
type KV struct {
	kv jetstream.KeyValue
	nc *nats.Conn
}

// Entry is one revision of a key. Deleted is a delete or purge marker: the key
// has no value from that revision on.
type Entry struct {
	Key      string
	Value    []byte
	Revision uint64
	Deleted  bool
}

// ErrNoBucket is the error of a bucket that does not exist.
var ErrNoBucket = errors.New("no such key-value bucket")

// kvHistory is how many revisions of each key a bucket created here keeps, so an
// operator can see what was pushed before (nats kv history).
const kvHistory = 5

// KV opens bucket; with create it makes the bucket if it does not exist.
func (p *Publisher) KV(ctx context.Context, bucket string, create bool) (*KV, error) {
	kv, err := p.js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) && create {
		kv, err = p.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, History: kvHistory})
	}
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return nil, fmt.Errorf("key-value bucket %s: %w", bucket, ErrNoBucket)
	case err != nil:
		return nil, fmt.Errorf("opening key-value bucket %s: %w", bucket, err)
	}
	return &KV{kv: kv, nc: p.nc}, nil
}

// Put writes value under key and returns its revision.
func (k *KV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := k.kv.Put(ctx, key, value)
	if err != nil {
		return 0, fmt.Errorf("writing %s to bucket %s: %w", key, k.kv.Bucket(), err)
	}
	return rev, nil
}

// Watch sends the latest revision of every key matching filters (subjects with
// wildcards), then an Entry with an empty Key once those initial values are all
// sent, then every later revision as it is written. The channel is closed when ctx
// ends or the watch breaks, and when the connection comes back after a loss: the
// server may have lost the watch's consumer (a restart), and the client would
// notice only after missing its heartbeats for a while. The caller watches again.
//
// Each filter has a watcher of its own: a consumer with several filter subjects
// needs nats-server 2.10, and gateways' hubs may be older.
func (k *KV) Watch(ctx context.Context, filters ...string) (<-chan Entry, error) {
	ctx, cancel := context.WithCancel(ctx)
	reconnected := k.nc.StatusChanged(nats.CONNECTED)
	go func() {
		defer k.nc.RemoveStatusListener(reconnected)
		select {
		case <-reconnected:
			cancel()
		case <-ctx.Done():
		}
	}()
	var watchers []jetstream.KeyWatcher
	for _, f := range filters {
		w, err := k.kv.Watch(ctx, f)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("watching %s in bucket %s: %w", f, k.kv.Bucket(), err)
		}
		watchers = append(watchers, w)
	}
	out := make(chan Entry)
	merged := make(chan jetstream.KeyValueEntry)
	var wg sync.WaitGroup
	for _, w := range watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			for kve := range w.Updates() {
				select {
				case merged <- kve:
				case <-ctx.Done():
					return
				}
			}
			cancel() // one broken watch breaks the whole: the caller watches again
		}()
	}
	go func() {
		wg.Wait()
		close(merged)
	}()
	go func() {
		defer close(out)
		defer cancel()
		initial := len(watchers)
		for kve := range merged {
			var e Entry
			if kve == nil {
				if initial--; initial > 0 {
					continue
				}
			} else {
				e = Entry{Key: kve.Key(), Value: kve.Value(), Revision: kve.Revision(), Deleted: kve.Operation() != jetstream.KeyValuePut}
			}
			select {
			case out <- e:
			case <-ctx.Done():
			}
		}
	}()
	return out, nil
}

// Snapshot is the latest revision of every key matching filters, deleted ones
// left out.
func (k *KV) Snapshot(ctx context.Context, filters ...string) ([]Entry, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := k.Watch(ctx, filters...)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for e := range ch {
		switch {
		case e.Key == "":
			return entries, nil
		case !e.Deleted:
			entries = append(entries, e)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("reading bucket %s: the watch ended early", k.kv.Bucket())
}
