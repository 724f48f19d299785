package windows

import (
	"fmt"
	"strconv"
	"strings"
)

// validAggregates is quoted in every parse error so a user sees the choices.
const validAggregates = "count, sum(f), min(f), max(f), avg(f), first(f), last(f), variance(f), stddev(f), pNN(f) such as p50(f), p95(f), p999(f), distinct(f)"

// QuantileAccuracy is the relative accuracy of pNN aggregates: the reported
// value is within 1 % of the exact quantile (DDSketch's guarantee, with the
// quantile defined as the element at rank q*(n-1)). The sketch keeps at most
// QuantileMaxBins bins; beyond that it collapses its lowest bins, so only
// distributions spanning more than ~17 orders of magnitude lose accuracy at
// their low end.
const (
	QuantileAccuracy = 0.01
	QuantileMaxBins  = 2048
)

// fn is an aggregate function. The values are persisted: never renumber.
type fn uint8

const (
	fnCount fn = iota + 1
	fnSum
	fnMin
	fnMax
	fnAvg
	fnFirst
	fnLast
	fnVariance
	fnStddev
	fnQuantile
	fnDistinct
)

var fnByName = map[string]fn{
	"sum": fnSum, "min": fnMin, "max": fnMax, "avg": fnAvg, "first": fnFirst,
	"last": fnLast, "variance": fnVariance, "stddev": fnStddev, "distinct": fnDistinct,
}

// Spec describes one configured aggregate, for code that recomputes results
// independently (the oracle in testing/oracle).
type Spec struct {
	// Func is count, sum, min, max, avg, first, last, variance, stddev,
	// quantile (for every pNN) or distinct.
	Func string
	// Field is the value field ("" for count).
	Field string
	// Quantile is q in [0, 1] for Func == "quantile".
	Quantile float64
	// Name is the result name, such as "p95_temp".
	Name string
}

type aggregate struct {
	fn     fn
	field  int // index into Aggregates.fields; -1 for count
	q      float64
	sketch int // index of the quantile or distinct sketch in an accumulator
	spec   Spec
}

// Aggregates is a parsed, immutable list of aggregates over record fields.
type Aggregates struct {
	aggs        []aggregate
	fields      []string
	names       []string
	quantFields []int // field index of each quantile sketch (one per field)
	distFields  []int // field index of each distinct sketch (one per field)
}

// ParseAggregates parses specs such as "count", "avg(temp)", "p95(temp)" and
// "distinct(sensor)". Several pNN of one field share one sketch.
func ParseAggregates(specs []string) (*Aggregates, error) {
	if len(specs) == 0 {
		return nil, fmt.Errorf("no aggregates given: valid aggregates are %s", validAggregates)
	}
	a := &Aggregates{}
	seen := map[string]bool{}
	for _, s := range specs {
		ag, field, err := parseOne(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		if ag.fn != fnCount {
			ag.field = a.fieldIndex(field)
		}
		switch ag.fn {
		case fnQuantile:
			ag.sketch = sketchIndex(&a.quantFields, ag.field)
		case fnDistinct:
			ag.sketch = sketchIndex(&a.distFields, ag.field)
		}
		if seen[ag.spec.Name] {
			return nil, fmt.Errorf("aggregate %q is listed twice (result name %q)", s, ag.spec.Name)
		}
		seen[ag.spec.Name] = true
		a.aggs = append(a.aggs, ag)
		a.names = append(a.names, ag.spec.Name)
	}
	return a, nil
}

func parseOne(s string) (aggregate, string, error) {
	if s == "count" {
		return aggregate{fn: fnCount, field: -1, spec: Spec{Func: "count", Name: "count"}}, "", nil
	}
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return aggregate{}, "", fmt.Errorf("unknown aggregate %q: valid aggregates are %s", s, validAggregates)
	}
	name, field := s[:open], s[open+1:len(s)-1]
	if !validField(field) {
		return aggregate{}, "", fmt.Errorf("aggregate %q: field %q must be non-empty letters, digits, '_', '-' or '.'", s, field)
	}
	result := name + "_" + strings.ReplaceAll(field, ".", "_")
	if f, ok := fnByName[name]; ok {
		return aggregate{fn: f, spec: Spec{Func: name, Field: field, Name: result}}, field, nil
	}
	if q, ok := parsePercentile(name); ok {
		return aggregate{fn: fnQuantile, q: q, spec: Spec{Func: "quantile", Field: field, Quantile: q, Name: result}}, field, nil
	}
	return aggregate{}, "", fmt.Errorf("unknown aggregate %q: valid aggregates are %s", s, validAggregates)
}

// parsePercentile reads "pNN": the digits are a percentage with the decimal
// point after the second digit, so p5 = 5 %, p95 = 95 %, p999 = 99.9 %.
func parsePercentile(name string) (float64, bool) {
	digits, ok := strings.CutPrefix(name, "p")
	if !ok || digits == "" || len(digits) > 9 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	if len(digits) == 1 {
		digits = "0" + digits
	}
	// Parsing "0.NN..." directly gives the closest float64 to q, which
	// dividing a percentage by 100 does not (99.9/100 != 0.999).
	q, err := strconv.ParseFloat("0."+digits, 64)
	return q, err == nil
}

func validField(f string) bool {
	if f == "" {
		return false
	}
	for _, c := range f {
		ok := c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

func (a *Aggregates) fieldIndex(f string) int {
	for i, g := range a.fields {
		if g == f {
			return i
		}
	}
	a.fields = append(a.fields, f)
	return len(a.fields) - 1
}

func sketchIndex(fields *[]int, field int) int {
	for i, f := range *fields {
		if f == field {
			return i
		}
	}
	*fields = append(*fields, field)
	return len(*fields) - 1
}

// Fields returns the value fields records must carry, in order; Record.Values
// is aligned with it. The caller must not modify the slice.
func (a *Aggregates) Fields() []string { return a.fields }

// Names returns the result names ("count", "avg_temp", "p95_temp", ...) in
// the order of the specs; Result.Values follows it. The caller must not
// modify the slice.
func (a *Aggregates) Names() []string { return a.names }

// Specs describes each aggregate, in Names() order.
func (a *Aggregates) Specs() []Spec {
	out := make([]Spec, len(a.aggs))
	for i, ag := range a.aggs {
		out[i] = ag.spec
	}
	return out
}
