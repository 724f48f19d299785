package mqtt

// maxInterned bounds the interner: a stream with more distinct keys than this
// (or a device sending a fresh string in every message) makes the interner
// start over rather than grow without limit.
const maxInterned = 4096

// interner returns one shared string per distinct byte sequence so that keys
// and string values repeated record after record do not allocate.
type interner struct {
	m map[string]string
}

func (in *interner) intern(b []byte) string {
	if s, ok := in.m[string(b)]; ok { // the compiler does not allocate for this lookup
		return s
	}
	if in.m == nil {
		// No size hint: a source usually sees one key, and a map sized for 64
		// costs kilobytes per source.
		in.m = map[string]string{}
	} else if len(in.m) >= maxInterned {
		clear(in.m)
	}
	s := string(b)
	in.m[s] = s
	return s
}
