package mqtt

import (
	"time"

	"github.com/valyala/fastjson"
)

// rfc3339Time converts an RFC 3339 string field to ms, flooring sub-millisecond digits.
func (e *Extractor) rfc3339Time(kind, field string, v *fastjson.Value) (int64, error) {
	if v.Type() != fastjson.TypeString {
		return 0, fieldErr(kind, field, "expected an RFC 3339 string, got %s", v.Type())
	}
	b, _ := v.StringBytes()
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, fieldErr(kind, field, "%q is not an RFC 3339 time", b)
	}
	ms := t.UnixMilli() // floors: the nanosecond part of a time.Time is never negative
	if ms < e.minTS {
		return 0, fieldErr(kind, field, "%q is before %s", b, formatMillis(e.minTS))
	}
	if ms > maxEventTime {
		return 0, fieldErr(kind, field, "%q is after %s", b, formatMillis(maxEventTime))
	}
	return ms, nil
}

func formatMillis(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }
