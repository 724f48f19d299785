package mqtt

import (
	"errors"
	"reflect"
	"testing"
)

func num(f float64) Value     { return Value{Num: f, Kind: ValueNumber} }
func str(s string) Value      { return Value{Str: s, Kind: ValueString} }
func missing() Value          { return Value{} }
func vals(v ...Value) []Value { return v }

func TestExtract(t *testing.T) {
	ms := ExtractSpec{Timestamp: "ts", Unit: Millis, KeyField: "sensor", KeySegment: -1, Values: []string{"temp"}}
	with := func(f func(*ExtractSpec)) ExtractSpec {
		s := ms
		s.Values = append([]string(nil), ms.Values...)
		f(&s)
		return s
	}
	tests := []struct {
		name    string
		spec    ExtractSpec
		topic   string
		payload string
		want    Reading
		wantErr string
	}{
		{name: "MillisecondsAreTakenAsIs", spec: ms, payload: `{"sensor":"s-1","ts":1733140000123,"temp":21.5}`,
			want: Reading{TS: 1733140000123, HasTS: true, Key: "s-1", Values: vals(num(21.5))}},
		{name: "SecondsAreScaledExactlyWithFractions", spec: with(func(s *ExtractSpec) { s.Unit = Seconds }),
			payload: `{"sensor":"s-1","ts":1733140000.123,"temp":1}`,
			want:    Reading{TS: 1733140000123, HasTS: true, Key: "s-1", Values: vals(num(1))}},
		{name: "MicrosecondsAreFloored", spec: with(func(s *ExtractSpec) { s.Unit = Micros }),
			payload: `{"sensor":"s-1","ts":1733140000123999,"temp":1}`,
			want:    Reading{TS: 1733140000123, HasTS: true, Key: "s-1", Values: vals(num(1))}},
		{name: "NanosecondsKeepEveryDigit", spec: with(func(s *ExtractSpec) { s.Unit = Nanos }),
			payload: `{"sensor":"s-1","ts":1733140000123456789,"temp":1}`,
			want:    Reading{TS: 1733140000123, HasTS: true, Key: "s-1", Values: vals(num(1))}},
		{name: "RFC3339StringsAreParsedAndFloored", spec: with(func(s *ExtractSpec) { s.Unit = RFC3339 }),
			payload: `{"sensor":"s-1","ts":"2024-12-02T12:26:40.1239+01:00","temp":1}`,
			want:    Reading{TS: 1733138800123, HasTS: true, Key: "s-1", Values: vals(num(1))}},
		{name: "QuotedNumericTimestampsAreAccepted", spec: ms, payload: `{"sensor":"s-1","ts":"1733140000123","temp":1}`,
			want: Reading{TS: 1733140000123, HasTS: true, Key: "s-1", Values: vals(num(1))}},
		{name: "NestedPathsAndArrayIndexesAreFollowed",
			spec:    ExtractSpec{Timestamp: "meta.time.ms", Unit: Millis, KeyField: "meta.id", KeySegment: -1, Values: []string{"data.temp", "data.hum.0"}},
			payload: `{"meta":{"time":{"ms":1733140000000},"id":"boiler"},"data":{"temp":70,"hum":[40,41]}}`,
			want:    Reading{TS: 1733140000000, HasTS: true, Key: "boiler", Values: vals(num(70), num(40))}},
		{name: "KeyComesFromATopicSegment", spec: with(func(s *ExtractSpec) { s.KeyField = ""; s.KeySegment = 1 }),
			topic: "sensors/s-7/data", payload: `{"ts":1733140000000,"temp":2}`,
			want: Reading{TS: 1733140000000, HasTS: true, Key: "s-7", Values: vals(num(2))}},
		{name: "KeyIsTheWholeTopicWhenNothingElseIsConfigured", spec: with(func(s *ExtractSpec) { s.KeyField = "" }),
			topic: "sensors/s-7/data", payload: `{"ts":1733140000000,"temp":2}`,
			want: Reading{TS: 1733140000000, HasTS: true, Key: "sensors/s-7/data", Values: vals(num(2))}},
		{name: "NumericKeysUseTheirText", spec: ms, payload: `{"sensor":17,"ts":1733140000000}`,
			want: Reading{TS: 1733140000000, HasTS: true, Key: "17", Values: vals(missing())}},
		{name: "ValuesMayBeStringsBoolsOrMissing",
			spec:    with(func(s *ExtractSpec) { s.Values = []string{"state", "on", "off", "gone", "nil"} }),
			payload: `{"sensor":"s","ts":1733140000000,"state":"heating","on":true,"off":false,"nil":null}`,
			want:    Reading{TS: 1733140000000, HasTS: true, Key: "s", Values: vals(str("heating"), num(1), num(0), missing(), missing())}},
		{name: "AMarkerWithoutTimestampIsPunctuation", spec: with(func(s *ExtractSpec) { s.WatermarkField = "watermark" }),
			payload: `{"watermark":1733140005000}`,
			want:    Reading{Watermark: 1733140005000, HasWatermark: true}},
		{name: "AReadingMayCarryAMarkerToo", spec: with(func(s *ExtractSpec) { s.WatermarkField = "watermark" }),
			payload: `{"sensor":"s","ts":1733140000000,"temp":3,"watermark":1733139999000}`,
			want:    Reading{TS: 1733140000000, HasTS: true, Key: "s", Values: vals(num(3)), Watermark: 1733139999000, HasWatermark: true}},
		{name: "AConfiguredMinimumIsHonoured", spec: with(func(s *ExtractSpec) { s.MinTimestamp = 1 }),
			payload: `{"sensor":"s","ts":5}`, want: Reading{TS: 5, HasTS: true, Key: "s", Values: vals(missing())}},

		{name: "SecondsWhereMillisAreConfiguredAreRejectedWithAHint", spec: ms, payload: `{"sensor":"s","ts":1733140000}`,
			wantErr: `timestamp field "ts": 1733140000 ms is before 2000-01-01T00:00:00Z (is the unit s?)`},
		{name: "NanosecondsWhereMillisAreConfiguredAreRejectedWithAHint", spec: ms, payload: `{"sensor":"s","ts":1733140000123456789}`,
			wantErr: `timestamp field "ts": 1733140000123456789 ms is after 9999-12-31T23:59:59.999Z (is the unit ns?)`},
		{name: "AMissingTimestampIsAnError", spec: ms, payload: `{"sensor":"s","temp":1}`,
			wantErr: `timestamp field "ts": missing`},
		{name: "ANullTimestampIsMissing", spec: ms, payload: `{"sensor":"s","ts":null}`,
			wantErr: `timestamp field "ts": missing`},
		{name: "ABoolTimestampIsAnError", spec: ms, payload: `{"sensor":"s","ts":true}`,
			wantErr: `timestamp field "ts": expected a number of ms, got true`},
		{name: "ATextTimestampIsAnError", spec: ms, payload: `{"sensor":"s","ts":"yesterday"}`,
			wantErr: `timestamp field "ts": "yesterday" is not a number`},
		{name: "AnOverflowingTimestampIsAnError", spec: ms, payload: `{"sensor":"s","ts":1e30}`,
			wantErr: `timestamp field "ts": 1e30 ms is out of range`},
		{name: "ANumberWhereRFC3339IsConfiguredIsAnError", spec: with(func(s *ExtractSpec) { s.Unit = RFC3339 }),
			payload: `{"sensor":"s","ts":1733140000000}`, wantErr: `timestamp field "ts": expected an RFC 3339 string, got number`},
		{name: "ABadRFC3339StringIsAnError", spec: with(func(s *ExtractSpec) { s.Unit = RFC3339 }),
			payload: `{"sensor":"s","ts":"2024-12-02 12:26"}`, wantErr: `timestamp field "ts": "2024-12-02 12:26" is not an RFC 3339 time`},
		{name: "AMissingKeyFieldIsAnError", spec: ms, payload: `{"ts":1733140000000}`,
			wantErr: `key field "sensor": missing`},
		{name: "AnObjectKeyIsAnError", spec: ms, payload: `{"sensor":{},"ts":1733140000000}`,
			wantErr: `key field "sensor": expected a string or number, got object`},
		{name: "AnEmptyKeyIsAnError", spec: ms, payload: `{"sensor":"","ts":1733140000000}`,
			wantErr: `key field "sensor": empty`},
		{name: "AShortTopicHasNoKeySegment", spec: with(func(s *ExtractSpec) { s.KeyField = ""; s.KeySegment = 3 }),
			topic: "sensors/s-7", payload: `{"ts":1733140000000}`, wantErr: `topic "sensors/s-7" has no segment 3 to take the key from`},
		{name: "AnEmptyKeySegmentIsAnError", spec: with(func(s *ExtractSpec) { s.KeyField = ""; s.KeySegment = 1 }),
			topic: "sensors//data", payload: `{"ts":1733140000000}`, wantErr: `segment 1 of topic "sensors//data" is empty`},
		{name: "AnArrayValueIsAnError", spec: ms, payload: `{"sensor":"s","ts":1733140000000,"temp":[1]}`,
			wantErr: `value field "temp": expected a number, string or bool, got array`},
		{name: "ANaNValueIsAnError", spec: ms, payload: `{"sensor":"s","ts":1733140000000,"temp":NaN}`,
			wantErr: `value field "temp": NaN is not a finite number`},
		{name: "ABadMarkerIsAnError", spec: with(func(s *ExtractSpec) { s.WatermarkField = "wm" }),
			payload: `{"wm":"soon"}`, wantErr: `watermark field "wm": "soon" is not a number`},
		{name: "AKeyAtMaxKeyBytesIsTaken", spec: with(func(s *ExtractSpec) { s.MaxKeyBytes = 4 }),
			payload: `{"sensor":"abcd","ts":1733140000000}`,
			want:    Reading{TS: 1733140000000, HasTS: true, Key: "abcd", Values: vals(missing())}},
		{name: "AKeyOverMaxKeyBytesIsAnError", spec: with(func(s *ExtractSpec) { s.MaxKeyBytes = 4 }),
			payload: `{"sensor":"abcde","ts":1733140000000}`,
			wantErr: `key field "sensor": 5 bytes, longer than the 4 allowed (limits.max_key_bytes)`},
		{name: "ANumericKeyOverMaxKeyBytesIsAnError", spec: with(func(s *ExtractSpec) { s.MaxKeyBytes = 4 }),
			payload: `{"sensor":123456,"ts":1733140000000}`,
			wantErr: `key field "sensor": 6 bytes, longer than the 4 allowed (limits.max_key_bytes)`},
		{name: "ATopicSegmentOverMaxKeyBytesIsAnError", spec: with(func(s *ExtractSpec) { s.KeyField, s.KeySegment, s.MaxKeyBytes = "", 1, 4 }),
			topic: "sensors/abcde/data", payload: `{"ts":1733140000000}`,
			wantErr: `segment 1 of topic "sensors/abcde/data" is 5 bytes, longer than the 4 allowed (limits.max_key_bytes)`},
		{name: "TheWholeTopicAsKeyIsNotBoundByMaxKeyBytes", spec: with(func(s *ExtractSpec) { s.KeyField, s.MaxKeyBytes = "", 4 }),
			topic: "sensors/abcde/data", payload: `{"ts":1733140000000}`,
			want: Reading{TS: 1733140000000, HasTS: true, Key: "sensors/abcde/data", Values: vals(missing())}},
		{name: "AnArrayPayloadIsAnError", spec: ms, payload: `[1,2]`, wantErr: `payload is a JSON array, not an object`},
		{name: "AnEmptyPayloadIsAnError", spec: ms, payload: ``, wantErr: `payload is not JSON: cannot parse empty string; unparsed tail: ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reading{Values: make([]Value, 0, 4)}
			err := NewExtractor(tt.spec).Extract(tt.topic, []byte(tt.payload), &r)
			if tt.wantErr != "" {
				var de *DecodeError
				if !errors.As(err, &de) || err.Error() != tt.wantErr {
					t.Fatalf("Extract error = %v, want *DecodeError %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if tt.want.Values == nil {
				tt.want.Values = []Value{}
			}
			if !reflect.DeepEqual(r, tt.want) {
				t.Fatalf("Extract = %+v, want %+v", r, tt.want)
			}
		})
	}
}

func TestExtractorReusesTheReadingAndClearsOldFields(t *testing.T) {
	e := NewExtractor(ExtractSpec{Timestamp: "ts", Unit: Millis, KeySegment: -1, Values: []string{"v"}, WatermarkField: "wm"})
	var r Reading
	if err := e.Extract("t", []byte(`{"ts":1733140000000,"v":1,"wm":1733140000000}`), &r); err != nil {
		t.Fatal(err)
	}
	if err := e.Extract("t", []byte(`{"wm":1733140001000}`), &r); err != nil {
		t.Fatal(err)
	}
	want := Reading{Key: "", Values: []Value{}, Watermark: 1733140001000, HasWatermark: true}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("second Extract = %+v, want %+v", r, want)
	}
}

func TestInternedKeysDoNotAliasThePayload(t *testing.T) {
	e := NewExtractor(ExtractSpec{Timestamp: "ts", Unit: Millis, KeyField: "k", KeySegment: -1})
	payload := []byte(`{"k":"abc","ts":1733140000000}`)
	var r Reading
	if err := e.Extract("t", payload, &r); err != nil {
		t.Fatal(err)
	}
	copy(payload, `{"k":"xyz"`)
	if r.Key != "abc" {
		t.Fatalf("key changed with the payload buffer: %q", r.Key)
	}
}
