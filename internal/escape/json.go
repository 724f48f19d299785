package escape

import "encoding/json"

// AppendJSON appends s to b as a JSON string. Names, keys and topics rarely need
// escaping, so the common case copies without allocating; a string that does is
// quoted by encoding/json.
func AppendJSON(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
