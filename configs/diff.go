package configs

import (
	"reflect"
	"slices"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// DeviceDiff says how a new set of device files differs from the running one, so
// a live reload touches only what changed. Device ids are sorted.
type DeviceDiff struct {
	Added, Removed, Changed, Unchanged []string
	Devices                            map[string]*DeviceChange // by id, for Changed
}

// Empty reports whether the new devices are the running ones.
func (d *DeviceDiff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// DeviceChange is how one device's file changed. A changed file with the same
// content in another place (a rename) is no change.
type DeviceChange struct {
	Streams Changes // by stream name
	Windows Changes // by window name
	// Discard lists the windows whose saved state cannot be kept: removed, or
	// changed in type, size, slide, gap, offset, aggregates, the stream they read,
	// or that stream's topic, format, timestamp or key. Other changes (lateness,
	// output, early firings, late routing, a stream's watermark settings) keep it.
	Discard []string
}

// Changes sorts names into added, removed, changed and unchanged.
type Changes struct {
	Added, Removed, Changed, Unchanged []string
}

// DiffDevices compares the running devices with new ones by device id.
func DiffDevices(old, new []*Device) *DeviceDiff {
	d := &DeviceDiff{Devices: map[string]*DeviceChange{}}
	before := byID(old)
	after := byID(new)
	for id, n := range after {
		o, ok := before[id]
		switch {
		case !ok:
			d.Added = append(d.Added, id)
		case sameDevice(o, n):
			d.Unchanged = append(d.Unchanged, id)
		default:
			d.Changed = append(d.Changed, id)
			d.Devices[id] = diffDevice(o, n)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			d.Removed = append(d.Removed, id)
		}
	}
	for _, s := range []*[]string{&d.Added, &d.Removed, &d.Changed, &d.Unchanged} {
		slices.Sort(*s)
	}
	return d
}

func byID(devs []*Device) map[string]*Device {
	m := make(map[string]*Device, len(devs))
	for _, d := range devs {
		m[d.ID] = d
	}
	return m
}

func sameDevice(a, b *Device) bool {
	return slices.EqualFunc(a.Streams, b.Streams, sameStream) && slices.EqualFunc(a.Windows, b.Windows, sameWindow)
}

func diffDevice(o, n *Device) *DeviceChange {
	c := &DeviceChange{}
	c.Streams = diffNamed(o.Streams, n.Streams, func(s *Stream) string { return s.Name }, sameStream)
	c.Windows = diffNamed(o.Windows, n.Windows, func(w *Window) string { return w.Name }, sameWindow)
	c.Discard = append(c.Discard, c.Windows.Removed...)
	// An unchanged window reading a stream whose identity changed loses its state too.
	for _, name := range slices.Concat(c.Windows.Changed, c.Windows.Unchanged) {
		if !sameWindowState(o, n, name) {
			c.Discard = append(c.Discard, name)
		}
	}
	slices.Sort(c.Discard)
	return c
}

func diffNamed[T any](old, new []T, name func(T) string, same func(a, b T) bool) Changes {
	var c Changes
	before := map[string]T{}
	for _, x := range old {
		before[name(x)] = x
	}
	seen := map[string]bool{}
	for _, x := range new {
		n := name(x)
		seen[n] = true
		o, ok := before[n]
		switch {
		case !ok:
			c.Added = append(c.Added, n)
		case same(o, x):
			c.Unchanged = append(c.Unchanged, n)
		default:
			c.Changed = append(c.Changed, n)
		}
	}
	for _, x := range old {
		if !seen[name(x)] {
			c.Removed = append(c.Removed, name(x))
		}
	}
	for _, s := range []*[]string{&c.Added, &c.Removed, &c.Changed, &c.Unchanged} {
		slices.Sort(*s)
	}
	return c
}

// sameStream compares what a stream file says, not where it says it.
func sameStream(a, b *Stream) bool {
	x, y := *a, *b
	// Line moves with unrelated edits; the rest unexported is derived from the config.
	x.Line, y.Line = 0, 0
	x.wm, y.wm = watermark.Config{}, watermark.Config{}
	x.values, y.values = nil, nil
	return reflect.DeepEqual(x, y)
}

func sameWindow(a, b *Window) bool {
	x, y := *a, *b
	x.Line, y.Line = 0, 0
	x.op, y.op = windows.OperatorConfig{}, windows.OperatorConfig{}
	return reflect.DeepEqual(x, y)
}

// sameWindowState reports whether window name's saved state still means the same
// under the new device: the same windows over the same keys of the same readings.
func sameWindowState(o, n *Device, name string) bool {
	var a, b *Window
	for _, w := range o.Windows {
		if w.Name == name {
			a = w
		}
	}
	for _, w := range n.Windows {
		if w.Name == name {
			b = w
		}
	}
	if a.Type != b.Type || a.Size != b.Size || a.Slide != b.Slide || a.Gap != b.Gap || a.Offset != b.Offset ||
		!slices.Equal(a.Aggregates, b.Aggregates) || a.Stream != b.Stream {
		return false
	}
	sa, sb := o.Stream(a.Stream), n.Stream(b.Stream)
	return sa.Topic == sb.Topic && sa.Format == sb.Format && sa.Timestamp == sb.Timestamp && sa.Key == sb.Key
}
