package status

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

func TestStatusLagRingIsBounded(t *testing.T) {
	r := newLagRing(3, 2000)
	for i := range 5 {
		r.add(int64(i), map[string]float64{"a": float64(i)})
	}
	h := r.history(1)
	if fmt.Sprint(h.Times) != "[2 3 4]" || fmt.Sprint(h.Series["a"]) != "[2 3 4]" {
		t.Errorf("ring: %+v", h)
	}
}

func TestStatusPageIsReadOnly(t *testing.T) {
	for _, c := range []struct {
		method, path string
		code         int
	}{{"GET", "/", 200}, {"POST", "/", 405}, {"GET", "/nope", 404}} {
		w := httptest.NewRecorder()
		ServePage(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, w.Code, c.code)
		}
	}
}
