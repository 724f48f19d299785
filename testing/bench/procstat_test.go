package main

import "testing"

// The peak is the highest VmRSS as a number (9,999 kB after 10,000 is not a new
// peak, though "9999" sorts after "10000" as text), and its split is that sample's.
func TestRSSPeakKeepsTheHighestVmRSSAndItsSplit(t *testing.T) {
	status := func(rss, anon string) string {
		return "Name:\tbench\nVmRSS:\t  " + rss + " kB\nRssAnon:\t  " + anon + " kB\nRssFile:\t  2 kB\nRssShmem:\t 0 kB\n"
	}
	var p rssPeak
	for _, s := range [][2]string{{"9000", "7"}, {"10000", "8"}, {"9999", "9"}, {"500", "1"}} {
		p.see(status(s[0], s[1]))
	}
	if want := (rssPeak{rss: 10000, anon: 8, file: 2}); p != want {
		t.Errorf("peak = %+v, want %+v", p, want)
	}
}

func TestParseProcIOReadsTheBytesWrittenAndCancelled(t *testing.T) {
	text := "rchar: 5\nwchar: 7\nsyscr: 1\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 81920\ncancelled_write_bytes: 8192\n"
	w, err := parseProcIO(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := (diskWrites{written: 81920, cancelled: 8192}); w != want {
		t.Errorf("parseProcIO = %+v, want %+v", w, want)
	}
	if _, err := parseProcIO("rchar: 5\n"); err == nil {
		t.Error("parseProcIO of a text without write_bytes: no error")
	}
}
