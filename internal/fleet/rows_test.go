package fleet

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
)

func TestRowsCompareEachGatewaysRevisionWithItsFilesAndTheShared(t *testing.T) {
	keys := configs.FleetKeys{Prefix: "edged"}
	now := time.UnixMilli(100_000)
	report := func(host string, rev uint64, rejected uint64) natsjs.Entry {
		r := Report{Host: host, Revision: rev, Health: "ok", At: 90_000}
		if rejected > 0 {
			r.Rejected = &status.FleetRejection{Revision: rejected, Error: "k:3: windows[0].size: bad\nmore"}
		}
		data, _ := json.Marshal(r)
		return natsjs.Entry{Key: keys.Status(host), Value: data}
	}
	rows := Rows(keys, []natsjs.Entry{
		{Key: keys.Device("gw-1", "a.yaml"), Revision: 3},
		{Key: keys.Device(configs.FleetAllHost, "s.yaml"), Revision: 5},
		{Key: keys.Device("gw.3", "a.yaml"), Revision: 6},
		report("gw-1", 5, 0),
		report("gw-2", 4, 0),
		report("gw.3", 5, 6),
	}, now)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{r.Host, r.State, r.Reported}, "|"))
	}
	want := []string{"gw-1|up to date|10s ago", "gw-2|behind|10s ago", "gw.3|rejected 6: k:3: windows[0].size: bad|10s ago"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
