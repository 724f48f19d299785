package mqtt

import (
	"math"
	"strconv"
	"testing"
)

func TestScaleDecimalIsExactAndFloors(t *testing.T) {
	tests := []struct {
		raw   string
		shift int
		want  int64
		st    decimalStatus
	}{
		{"0", 3, 0, decimalOK},
		{"-0", 3, 0, decimalOK},
		{"1733140000", 3, 1733140000000, decimalOK},
		{"1733140000.123", 3, 1733140000123, decimalOK},
		{"1733140000.1239", 3, 1733140000123, decimalOK},
		{"1733140000.0001", 3, 1733140000000, decimalOK},
		{"-1.5", 3, -1500, decimalOK},
		{"-1.0005", 3, -1001, decimalOK},
		{"-0.0001", 3, -1, decimalOK},
		{"1.7331400001e9", 3, 1733140000100, decimalOK},
		{"17331400001E-1", 3, 1733140000100, decimalOK},
		{"1e+3", 0, 1000, decimalOK},
		{"1733140000123", 0, 1733140000123, decimalOK},
		{"1733140000123456", -3, 1733140000123, decimalOK},
		{"1733140000123456789", -6, 1733140000123, decimalOK},
		{"-1733140000123456789", -6, -1733140000124, decimalOK},
		{"17331400001234567891", -6, 17331400001234, decimalOK},
		{"1733140000123456789.5", -6, 1733140000123, decimalOK},
		{"9223372036854775807", 0, math.MaxInt64, decimalOK},
		{"9223372036854775808", 0, 0, decimalRange},
		{"9223372036854775807", 1, 0, decimalRange},
		{"1e19", 0, 0, decimalRange},
		{"1e400", 0, 0, decimalRange},
		{"1e-400", 0, 0, decimalOK},
		{"-1e-400", 0, -1, decimalOK},
		{"0.000", 3, 0, decimalOK},
		{"", 0, 0, decimalSyntax},
		{"-", 0, 0, decimalSyntax},
		{"01", 0, 0, decimalSyntax},
		{"1.", 0, 0, decimalSyntax},
		{".5", 0, 0, decimalSyntax},
		{"1e", 0, 0, decimalSyntax},
		{"1e+", 0, 0, decimalSyntax},
		{"+1", 0, 0, decimalSyntax},
		{"1-2", 0, 0, decimalSyntax},
		{"nan", 0, 0, decimalSyntax},
		{"inf", 0, 0, decimalSyntax},
		{" 1", 0, 0, decimalSyntax},
		{"12abc", 0, 0, decimalSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.raw+" shifted by "+strconv.Itoa(tt.shift), func(t *testing.T) {
			got, st := scaleDecimal([]byte(tt.raw), tt.shift)
			if st != tt.st || got != tt.want {
				t.Fatalf("scaleDecimal(%q, %d) = %d, %d; want %d, %d", tt.raw, tt.shift, got, st, tt.want, tt.st)
			}
		})
	}
}

func TestParseUnitKnowsEveryUnitAndListsThemOnError(t *testing.T) {
	for _, u := range []Unit{Seconds, Millis, Micros, Nanos, RFC3339} {
		got, err := ParseUnit(u.String())
		if err != nil || got != u {
			t.Errorf("ParseUnit(%q) = %v, %v; want %v", u.String(), got, err, u)
		}
	}
	_, err := ParseUnit("sec")
	if err == nil || err.Error() != `unknown timestamp unit "sec": use one of s, ms, us, ns, rfc3339` {
		t.Errorf("ParseUnit(sec) error = %v", err)
	}
}
