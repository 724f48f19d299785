package actors

import (
	"iter"
	"slices"
)

// fedBy is the window actors each stream fed, in first-fed order. Most streams feed
// one key per window definition, so a stream's first key sits in a map of its own: a
// gateway has an entry per sensor, and a slice for each would cost it more.
type fedBy struct {
	first map[string]*keyRef
	more  map[string][]*keyRef
}

func newFedBy() fedBy {
	return fedBy{first: map[string]*keyRef{}, more: map[string][]*keyRef{}}
}

func (f *fedBy) add(stream string, k *keyRef) {
	if _, ok := f.first[stream]; !ok {
		f.first[stream] = k
		return
	}
	f.more[stream] = append(f.more[stream], k)
}

// keys yields the window actors stream fed, first-fed first.
func (f *fedBy) keys(stream string) iter.Seq[*keyRef] {
	return func(yield func(*keyRef) bool) {
		k, ok := f.first[stream]
		if !ok || !yield(k) {
			return
		}
		for _, k := range f.more[stream] {
			if !yield(k) {
				return
			}
		}
	}
}

// remove forgets that stream fed k (k was passivated).
func (f *fedBy) remove(stream string, k *keyRef) {
	more := f.more[stream]
	if f.first[stream] == k {
		if len(more) == 0 {
			delete(f.first, stream)
			delete(f.more, stream)
			return
		}
		f.first[stream] = more[0]
		more = more[1:]
	} else {
		more = slices.DeleteFunc(more, func(x *keyRef) bool { return x == k })
	}
	if len(more) == 0 {
		delete(f.more, stream)
	} else {
		f.more[stream] = more
	}
}
