package natsjs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAKVWatchSendsTheLatestValuesThenAMarkerThenUpdatesAndDeletes(t *testing.T) {
	_, p, ctx := connected(t, 1)
	if _, err := p.KV(ctx, "fleet", false); !errors.Is(err, ErrNoBucket) {
		t.Fatalf("a missing bucket: %v, want ErrNoBucket", err)
	}
	kv, err := p.KV(ctx, "fleet", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"e.gw1.devices.a.yaml", "e.gw1.devices.a.yaml", "e.all.devices.b.yaml", "e.gw2.devices.c.yaml"} {
		if _, err := kv.Put(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := kv.Watch(ctx, "e.gw1.devices.>", "e.all.devices.>")
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for e := range ch {
		if e.Key == "" {
			break
		}
		got = append(got, e)
	}
	slices.SortFunc(got, func(a, b Entry) int { return strings.Compare(b.Key, a.Key) }) // two watchers: any order
	if len(got) != 2 || got[0].Key != "e.gw1.devices.a.yaml" || got[0].Revision != 2 || got[1].Key != "e.all.devices.b.yaml" {
		t.Fatalf("initial values %+v: want the latest a (revision 2) and b, not gw2's c", got)
	}
	if err := kv.kv.Delete(ctx, "e.gw1.devices.a.yaml"); err != nil {
		t.Fatal(err)
	}
	if e := <-ch; e.Key != "e.gw1.devices.a.yaml" || !e.Deleted || e.Revision != 5 {
		t.Fatalf("after a delete: %+v", e)
	}
	snap, err := kv.Snapshot(ctx, "e.>")
	if err != nil || len(snap) != 2 {
		t.Fatalf("Snapshot = %+v, %v; want b and c", snap, err)
	}
}
