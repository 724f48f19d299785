package natsjs

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEnsureStreamCreatesOrExtendsTheStreamAndStreamForFindsIt(t *testing.T) {
	srv, p, ctx := connected(t, 16)
	if _, _, err := p.StreamFor(ctx, "edged.gw1.>"); err == nil || !strings.Contains(err.Error(), "no JetStream stream takes in subject edged.gw1.>") {
		t.Fatalf("before any stream: %v, want an error naming the subject", err)
	}
	for _, c := range []StreamConfig{
		{Name: "EDGED", Subject: "edged.gw1.>", Duplicates: 2 * time.Minute}, // created
		{Name: "EDGED", Subject: "edged.gw2.>", Duplicates: time.Hour},       // extended, window raised
		{Name: "EDGED", Subject: "edged.gw1.>", Duplicates: time.Minute},     // already covered: unchanged
	} {
		if err := p.EnsureStream(ctx, c); err != nil {
			t.Fatalf("EnsureStream(%+v): %v", c, err)
		}
	}
	for _, subject := range []string{"edged.gw1.>", "edged.gw2.>"} {
		name, window, err := p.StreamFor(ctx, subject)
		if err != nil || name != "EDGED" || window != time.Hour {
			t.Errorf("StreamFor(%s) = %q, %v, %v; want EDGED with a window of 1h", subject, name, window, err)
		}
	}
	s, err := p.js.Stream(ctx, "EDGED")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CachedInfo().Config.Subjects; !slices.Equal(got, []string{"edged.gw1.>", "edged.gw2.>"}) {
		t.Errorf("stream subjects %v, want both gateways' once", got)
	}

	msgs := []Msg{{Subject: "edged.gw1.d.late.s", ID: "d-1", Data: []byte(`{}`)}, {Subject: "edged.gw1.d.late.s", ID: "d-2", Data: []byte(`{}`)}}
	for i, want := range []int{0, 2} {
		done := make(chan int, 1)
		p.PublishBatch(msgs, func(dups int, err error) {
			if err != nil {
				t.Error(err)
			}
			done <- dups
		})
		if dups := <-done; dups != want {
			t.Errorf("send %d of the batch: %d duplicates, want %d", i+1, dups, want)
		}
	}
	if n := srv.Count("EDGED"); n != 2 {
		t.Errorf("the stream holds %d messages after two sends of two records, want 2", n)
	}
}
