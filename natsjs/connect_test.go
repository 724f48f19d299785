package natsjs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/edged/edged/testing/natsbroker"
)

// connected starts a nats-server with JetStream and returns it and a publisher
// connected to it, closed at the end of the test, with a context for its calls.
func connected(t *testing.T, maxPending int) (*natsbroker.Server, *Publisher, context.Context) {
	t.Helper()
	srv := natsbroker.Start(t)
	p, err := Connect(Options{URL: srv.URL(), Name: "test", MaxPending: maxPending, AckTimeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if err := p.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return srv, p, ctx
}
