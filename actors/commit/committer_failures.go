package commit

import (
	"cmp"
	"slices"
	"sync"
)

// Failures holds the error of every device whose last commit failed, so /healthz
// can say what stalls intake rather than guess.
type Failures struct {
	mu   sync.Mutex
	errs map[string]error
}

// set records device's last commit: err nil means it succeeded.
func (f *Failures) set(device string, err error) {
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

// Failed is one device whose last commit failed.
type Failed struct {
	Device string
	Err    error
}

// List returns the failing devices in order of their names.
func (f *Failures) List() []Failed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Failed, 0, len(f.errs))
	for d, err := range f.errs {
		out = append(out, Failed{d, err})
	}
	slices.SortFunc(out, func(a, b Failed) int { return cmp.Compare(a.Device, b.Device) })
	return out
}
