package windows_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/edged/edged/windows"
)

func TestParseAggregatesNamesResultsAndFields(t *testing.T) {
	aggs, err := windows.ParseAggregates([]string{"count", "avg(temp)", "p95(temp)", "p999(temp)", "p5(hum)", "distinct(sensor)", "max(env.hum)"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"count", "avg_temp", "p95_temp", "p999_temp", "p5_hum", "distinct_sensor", "max_env_hum"}; !slices.Equal(aggs.Names(), want) {
		t.Errorf("Names() = %v, want %v", aggs.Names(), want)
	}
	if want := []string{"temp", "hum", "sensor", "env.hum"}; !slices.Equal(aggs.Fields(), want) {
		t.Errorf("Fields() = %v, want %v", aggs.Fields(), want)
	}
	var qs []float64
	for _, s := range aggs.Specs() {
		if s.Func == "quantile" {
			qs = append(qs, s.Quantile)
		}
	}
	if want := []float64{0.95, 0.999, 0.05}; !slices.Equal(qs, want) {
		t.Errorf("quantiles %v, want %v", qs, want)
	}
}

func TestParseAggregatesRejectsBadSpecsListingTheValidOnes(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  string
	}{
		{"an unknown function", []string{"median(temp)"}, "valid aggregates are count, sum(f)"},
		{"a missing field", []string{"avg()"}, "must be non-empty"},
		{"count with a field", []string{"count(x)"}, "unknown aggregate"},
		{"a missing parenthesis", []string{"avg(temp"}, "valid aggregates are"},
		{"a field with spaces", []string{"avg(a b)"}, "must be non-empty letters"},
		{"p with letters", []string{"pxx(temp)"}, "unknown aggregate"},
		{"a duplicate", []string{"avg(t)", "avg(t)"}, "listed twice"},
		{"nothing", nil, "no aggregates"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := windows.ParseAggregates(tc.specs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
