package actors

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/status"
)

// The Grafana dashboard and the alert rules in packaging/ are read by people who
// cannot see a renamed metric disappear; every edged_ series they use must exist.
func TestPackagedDashboardsAndAlertsUseExistingMetrics(t *testing.T) {
	known := map[string]bool{}
	descs := make(chan *prometheus.Desc, 256)
	collect := func(c prometheus.Collector) {
		c.Describe(descs)
		for len(descs) > 0 {
			if m := fqName.FindStringSubmatch((<-descs).String()); m != nil {
				known[m[1]] = true
			}
		}
	}
	m := reflect.ValueOf(NewMetrics()).Elem()
	for i := range m.NumField() {
		if !m.Type().Field(i).IsExported() {
			continue
		}
		if c, ok := m.Field(i).Interface().(prometheus.Collector); ok {
			collect(c)
		}
	}
	collect(buildInfoCollector())
	collect(status.NewCollector(status.NewStats(), false))
	collect(newReloadState(prometheus.NewRegistry(), 0).total)
	if !known["edged_records_in_total"] || !known["edged_build_info"] {
		t.Fatalf("metric discovery found %d names, not the basics; the test is broken", len(known))
	}
	for _, file := range []string{"../packaging/grafana/edged-dashboard.json", "../packaging/prometheus/edged-alerts.yml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		used := usedMetric.FindAllString(string(data), -1)
		if len(used) == 0 {
			t.Errorf("%s uses no edged metric", file)
		}
		for _, name := range used {
			base := name
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(name, suffix); ok && known[b] {
					base = b
				}
			}
			if !known[base] {
				t.Errorf("%s uses %s, which edged does not export", file, name)
			}
		}
	}
}

var (
	fqName     = regexp.MustCompile(`fqName: "([^"]+)"`)
	usedMetric = regexp.MustCompile(`\bedged_[a-z_]+\b`)
)
