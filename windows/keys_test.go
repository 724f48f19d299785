package windows

import "testing"

// The first key's state is held apart from the others'; every key is found
// wherever it went, before and after another is removed.
func TestKeyStatesFindEveryKeyWhereverItIsHeld(t *testing.T) {
	var k keyStates
	for _, key := range []string{"a", "b", "c"} {
		k.add(&keyState{key: key})
	}
	k.remove("a")
	k.add(&keyState{key: "d"}) // takes the place a left
	for _, key := range []string{"b", "c", "d"} {
		if ks := k.get(key); ks == nil || ks.key != key {
			t.Fatalf("get(%q) = %v", key, ks)
		}
	}
	if k.get("a") != nil {
		t.Fatal("a removed key is still found")
	}
	k.remove("c")
	if k.get("c") != nil || k.get("b") == nil {
		t.Fatal("removing one key of the map lost another or kept it")
	}
}
