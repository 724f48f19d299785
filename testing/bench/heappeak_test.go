package main

import "testing"

// The peak is the highest VmRSS as a number: 9,999 kB after 10,000 is not a new
// peak, though "9999" sorts after "10000" as text.
func TestRSSPeakKeepsTheHighestVmRSS(t *testing.T) {
	status := func(kb string) string {
		return "Name:\tbench\nVmRSS:\t  " + kb + " kB\nRssAnon:\t  1 kB\nRssFile:\t  2 kB\nRssShmem:\t 0 kB\n"
	}
	var p rssPeak
	for _, kb := range []string{"9000", "10000", "9999", "500"} {
		p.see(status(kb))
	}
	if p.kb != 10000 {
		t.Errorf("peak = %d kB, want 10000", p.kb)
	}
	if want := "VmRSS: 10000 kB RssAnon: 1 kB RssFile: 2 kB RssShmem: 0 kB"; p.line != want {
		t.Errorf("line at the peak = %q, want %q", p.line, want)
	}
}
