package fleet

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
)

// Row is what `edged fleet status` shows of one gateway.
type Row struct {
	Host             string
	Applied, Latest  uint64 // the revision the gateway applied; the latest of its files and the shared ones
	State            string // up to date, behind, rejected (with why), never reported
	Reported, Health string // how long ago it last reported, and its health then
}

// Rows is a line per gateway that reported or has device files of its own:
// the revision it applied against the latest revision of its files and the
// shared ones.
func Rows(keys configs.FleetKeys, entries []natsjs.Entry, now time.Time) []Row {
	reports := map[string]Report{}
	own := map[string]uint64{} // host -> latest revision of its device files
	var shared uint64
	for _, e := range entries {
		if host, ok := keys.StatusHost(e.Key); ok {
			var r Report
			if json.Unmarshal(e.Value, &r) == nil {
				reports[host] = r
			}
			continue
		}
		if host, _, ok := keys.File(e.Key); ok {
			if host == configs.FleetAllHost {
				shared = max(shared, e.Revision)
			} else {
				own[host] = max(own[host], e.Revision)
			}
		}
	}
	hosts := map[string]bool{}
	for h := range reports {
		hosts[h] = true
	}
	for h := range own {
		hosts[h] = true
	}
	var rows []Row
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		r, ok := reports[h]
		row := Row{Host: h, Latest: max(own[h], shared), Applied: r.Revision, Reported: "never", Health: "-"}
		switch {
		case !ok:
			row.State = "never reported"
		case r.Rejected != nil: // a revision is being ignored, whatever else applied since
			row.State = fmt.Sprintf("rejected %d: %s", r.Rejected.Revision, firstLine(r.Rejected.Error))
		case r.Revision >= row.Latest:
			row.State = "up to date"
		default:
			row.State = "behind"
		}
		if ok {
			row.Reported = now.Sub(time.UnixMilli(r.At)).Round(time.Second).String() + " ago"
			row.Health = r.Health
		}
		rows = append(rows, row)
	}
	return rows
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
