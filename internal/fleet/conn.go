package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
)

// ackTimeout bounds a write to the fleet bucket.
const ackTimeout = 10 * time.Second

// Dial connects to the fleet bucket's NATS server with k's credentials. It
// returns at once; the connection comes up (and back) in the background.
func Dial(k configs.FleetKV, name string, log *slog.Logger) (*natsjs.Publisher, error) {
	tlsCfg, err := k.TLS.Config()
	if err != nil {
		return nil, fmt.Errorf("fleet.kv.tls: %w", err)
	}
	return natsjs.Connect(natsjs.Options{
		URL: k.URL, Name: name, Username: k.Username, Password: k.Password, Token: k.Token,
		NKeySeedFile: k.NKeySeedFile, CredsFile: k.CredsFile, TLS: tlsCfg,
		MaxPending: 1, AckTimeout: ackTimeout, Logger: log,
	})
}

// OpenBucket waits for the connection and opens the bucket.
func OpenBucket(ctx context.Context, p *natsjs.Publisher, bucket string, create bool) (*natsjs.KV, error) {
	if err := p.WaitConnected(ctx); err != nil {
		return nil, fmt.Errorf("connecting to NATS: %w", err)
	}
	return p.KV(ctx, bucket, create)
}
