package actors

import (
	"cmp"
	"slices"
	"sync"
)

// commitFailures holds the error of every device whose last commit failed, so
// /healthz can say what stalls intake rather than guess.
type commitFailures struct {
	mu   sync.Mutex
	errs map[string]error
}

// set records device's last commit: err nil means it succeeded.
func (f *commitFailures) set(device string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.errs, device)
		return
	}
	if f.errs == nil {
		f.errs = map[string]error{}
	}
	f.errs[device] = err
}

// failed is one device whose last commit failed.
type failed struct {
	device string
	err    error
}

// list returns the failing devices in order of their names.
func (f *commitFailures) list() []failed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]failed, 0, len(f.errs))
	for d, err := range f.errs {
		out = append(out, failed{d, err})
	}
	slices.SortFunc(out, func(a, b failed) int { return cmp.Compare(a.device, b.device) })
	return out
}
