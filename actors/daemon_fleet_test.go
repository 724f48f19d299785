package actors

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
)

// A gateway with a fleet bucket shows the fleet block on its first /status answer:
// a client that reads it once edged answers sees which revision edged started with.
func TestTheFleetBlockIsOnTheFirstStatus(t *testing.T) {
	cfg := readyConfig(t, 10)
	cfg.HTTP = configs.HTTP{Listen: "127.0.0.1:0"}
	d, err := Start(context.Background(), cfg, slog.New(slog.DiscardHandler), WithFleet("fleet", "gw-a", 7))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop(10 * time.Second) })
	resp, err := http.Get("http://" + d.HTTPAddr() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st status.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Config == nil || st.Config.Fleet == nil || st.Config.Fleet.Revision != 7 || !st.Config.Fleet.FromDisk || st.Config.Fleet.Host != "gw-a" {
		t.Errorf("the first /status has config %+v, want the fleet block of revision 7 from disk", st.Config)
	}
}
