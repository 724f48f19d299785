package windows

// keyStates is an Operator's state by key. edged runs an operator per key (each
// window actor owns one), so the first key is held apart and a map is made only
// for a second: a map with one entry costs ~250 bytes, for each of thousands.
type keyStates struct {
	one  *keyState
	many map[string]*keyState
}

// get returns key's state, nil if it has none.
func (k *keyStates) get(key string) *keyState {
	if k.one != nil && k.one.key == key {
		return k.one
	}
	return k.many[key]
}

// add holds ks, whose key has no state yet.
func (k *keyStates) add(ks *keyState) {
	switch {
	case k.one == nil:
		k.one = ks
	case k.many == nil:
		k.many = map[string]*keyState{ks.key: ks}
	default:
		k.many[ks.key] = ks
	}
}

// remove drops key's state.
func (k *keyStates) remove(key string) {
	if k.one != nil && k.one.key == key {
		k.one = nil
		return
	}
	delete(k.many, key)
}
