package actors

import "iter"

// smallMap is a map for the few entries most actors hold: up to smallMapLen in a
// slice searched in order, in a Go map past that. A Go map costs ~250 bytes with
// one entry, and a gateway has two actors per sensor, each with a map or two.
type smallMap[K comparable, V any] struct {
	few  []smallEntry[K, V]
	many map[K]V // nil until there are more than smallMapLen entries
}

type smallEntry[K comparable, V any] struct {
	k K
	v V
}

// smallMapLen is how many entries a smallMap searches in order: a search as cheap
// as a hash, about.
const smallMapLen = 8

func (m *smallMap[K, V]) get(k K) (V, bool) {
	if m.many != nil {
		v, ok := m.many[k]
		return v, ok
	}
	for i := range m.few {
		if m.few[i].k == k {
			return m.few[i].v, true
		}
	}
	var zero V
	return zero, false
}

func (m *smallMap[K, V]) set(k K, v V) {
	if m.many != nil {
		m.many[k] = v
		return
	}
	for i := range m.few {
		if m.few[i].k == k {
			m.few[i].v = v
			return
		}
	}
	if len(m.few) < smallMapLen {
		m.few = append(m.few, smallEntry[K, V]{k, v})
		return
	}
	m.many = make(map[K]V, len(m.few)+1)
	for _, e := range m.few {
		m.many[e.k] = e.v
	}
	m.many[k] = v
	m.few = nil
}

// delete removes k, keeping the order of the others while there are few.
func (m *smallMap[K, V]) delete(k K) {
	if m.many != nil {
		delete(m.many, k)
		return
	}
	for i := range m.few {
		if m.few[i].k == k {
			m.few = append(m.few[:i], m.few[i+1:]...)
			m.few[len(m.few):cap(m.few)][0] = smallEntry[K, V]{} // drop the moved-out reference
			return
		}
	}
}

func (m *smallMap[K, V]) len() int {
	if m.many != nil {
		return len(m.many)
	}
	return len(m.few)
}

// all yields the entries, in the order they were set while there are few.
func (m *smallMap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m.many != nil {
			for k, v := range m.many {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		for _, e := range m.few {
			if !yield(e.k, e.v) {
				return
			}
		}
	}
}

// clear empties m and keeps its storage for the next entries.
func (m *smallMap[K, V]) clear() {
	clear(m.few)
	m.few = m.few[:0]
	clear(m.many)
}
