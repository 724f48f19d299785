package windows

// ValueKind says what a Value holds.
type ValueKind uint8

const (
	// Missing: the record does not carry the field (the zero Value).
	Missing ValueKind = iota
	// Number: Num holds the value.
	Number
	// String: Str holds the value.
	String
)

// Value is one field of a record. Numeric aggregates use Number values only
// and skip the rest (and NaN); distinct counts numbers and strings.
type Value struct {
	Num  float64
	Str  string
	Kind ValueKind
}

// NumberValue returns a Number value.
func NumberValue(f float64) Value { return Value{Num: f, Kind: Number} }

// StringValue returns a String value.
func StringValue(s string) Value { return Value{Str: s, Kind: String} }

// Record is one reading: its event time in ms and its values, aligned with
// Aggregates.Fields() (missing trailing values count as Missing).
type Record struct {
	TS     int64
	Values []Value
}
