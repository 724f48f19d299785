package mqtt

import "math"

// decimalStatus is the outcome of scaleDecimal.
type decimalStatus uint8

const (
	decimalOK     decimalStatus = iota
	decimalSyntax               // not a JSON number
	decimalRange                // a number, but the result does not fit in an int64
)

// maxSigDigits is the number of significant decimal digits a uint64 mantissa
// holds without overflow (10^19 - 1 < 2^64).
const maxSigDigits = 19

// scaleDecimal parses raw as a JSON number (strict grammar) and returns
// floor(raw * 10^shift) as an int64. It works on the decimal text rather than
// a float64, so that "1733140000.123" seconds is exactly 1733140000123 ms and
// 19-digit nanosecond timestamps keep every digit.
func scaleDecimal(raw []byte, shift int) (int64, decimalStatus) {
	i, n := 0, len(raw)
	neg := false
	if i < n && raw[i] == '-' {
		neg = true
		i++
	}
	var (
		mant   uint64
		sig    int  // significant digits held in mant
		exp    int  // decimal exponent of mant
		sticky bool // a nonzero digit was dropped beyond maxSigDigits
	)
	digit := func(d byte, fraction bool) {
		switch {
		case mant == 0 && d == 0:
			// Leading zero: not significant.
		case sig < maxSigDigits:
			mant = mant*10 + uint64(d)
			sig++
		default:
			sticky = sticky || d != 0
			if !fraction {
				exp++
			}
			return
		}
		if fraction {
			exp--
		}
	}
	// Integer part: "0" or [1-9][0-9]*.
	start := i
	for i < n && raw[i] >= '0' && raw[i] <= '9' {
		digit(raw[i]-'0', false)
		i++
	}
	if i == start || (raw[start] == '0' && i-start > 1) {
		return 0, decimalSyntax
	}
	if i < n && raw[i] == '.' {
		i++
		start = i
		for i < n && raw[i] >= '0' && raw[i] <= '9' {
			digit(raw[i]-'0', true)
			i++
		}
		if i == start {
			return 0, decimalSyntax
		}
	}
	if i < n && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		eneg := false
		if i < n && (raw[i] == '+' || raw[i] == '-') {
			eneg = raw[i] == '-'
			i++
		}
		start = i
		e := 0
		for i < n && raw[i] >= '0' && raw[i] <= '9' {
			if e < 10000 { // clamp: anything this large over- or underflows anyway
				e = e*10 + int(raw[i]-'0')
			}
			i++
		}
		if i == start {
			return 0, decimalSyntax
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != n {
		return 0, decimalSyntax
	}
	if mant == 0 {
		return 0, decimalOK
	}
	e := exp + shift
	var q uint64
	frac := sticky
	switch {
	case e >= 0:
		q = mant
		for ; e > 0; e-- {
			if q > math.MaxUint64/10 {
				return 0, decimalRange
			}
			q *= 10
		}
	case -e > maxSigDigits:
		q, frac = 0, true
	default:
		p := pow10[-e]
		q = mant / p
		frac = frac || mant%p != 0
	}
	if q > math.MaxInt64 {
		return 0, decimalRange
	}
	v := int64(q)
	if neg {
		v = -v
		if frac {
			if v == math.MinInt64 {
				return 0, decimalRange
			}
			v--
		}
	}
	return v, decimalOK
}

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
