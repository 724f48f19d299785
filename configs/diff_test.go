package configs

import (
	"reflect"
	"strings"
	"testing"
)

// diffFile is a device file with one stream and two windows; edits replace
// parts of it by text, as an operator would.
const diffFile = `device: boilers
streams:
  - name: temp
    topic: plant/+/temp
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 2s}
windows:
  - name: minute
    stream: temp
    type: tumbling
    size: 1m
    allowed_lateness: 10s
    aggregates: [count, avg(v)]
  - name: hour
    stream: temp
    type: tumbling
    size: 1h
    aggregates: [max(v)]
`

func parseDiffDevice(t *testing.T, id, text string) *Device {
	t.Helper()
	dev, err := ParseDevice(id+".yaml", []byte(strings.Replace(text, "device: boilers", "device: "+id, 1)))
	if err != nil {
		t.Fatalf("parsing %s: %v", id, err)
	}
	return dev
}

func TestDiffDevicesSortsDevicesByWhatChanged(t *testing.T) {
	old := []*Device{parseDiffDevice(t, "a", diffFile), parseDiffDevice(t, "b", diffFile), parseDiffDevice(t, "c", diffFile)}
	// b moves a line down (a comment) but says the same; c changes a bound.
	new := []*Device{
		parseDiffDevice(t, "b", "# moved\n"+diffFile),
		parseDiffDevice(t, "c", strings.Replace(diffFile, "max_out_of_orderness: 2s", "max_out_of_orderness: 5s", 1)),
		parseDiffDevice(t, "d", diffFile),
	}
	d := DiffDevices(old, new)
	want := &DeviceDiff{Added: []string{"d"}, Removed: []string{"a"}, Changed: []string{"c"}, Unchanged: []string{"b"}}
	if !reflect.DeepEqual([][]string{d.Added, d.Removed, d.Changed, d.Unchanged}, [][]string{want.Added, want.Removed, want.Changed, want.Unchanged}) {
		t.Fatalf("got added %v removed %v changed %v unchanged %v", d.Added, d.Removed, d.Changed, d.Unchanged)
	}
	c := d.Devices["c"]
	if !reflect.DeepEqual(c.Streams.Changed, []string{"temp"}) || len(c.Discard) != 0 || len(c.Windows.Changed) != 0 {
		t.Fatalf("a new bound changes the stream only and keeps every window's state: %+v", c)
	}
	if d.Empty() || !DiffDevices(old, old).Empty() {
		t.Fatal("Empty must say whether anything changed")
	}
}

func TestDiffDevicesSaysWhichWindowsKeepTheirState(t *testing.T) {
	tests := []struct {
		name    string
		old     string
		new     string
		windows Changes
		streams []string // changed
		discard []string
	}{
		{name: "a new aggregate starts the window fresh",
			old: "aggregates: [max(v)]", new: "aggregates: [max(v), min(v)]",
			windows: Changes{Changed: []string{"hour"}, Unchanged: []string{"minute"}}, discard: []string{"hour"}},
		{name: "a new size starts the window fresh",
			old: "size: 1h", new: "size: 2h",
			windows: Changes{Changed: []string{"hour"}, Unchanged: []string{"minute"}}, discard: []string{"hour"}},
		{name: "a longer allowed lateness keeps the state",
			old: "allowed_lateness: 10s", new: "allowed_lateness: 1m",
			windows: Changes{Changed: []string{"minute"}, Unchanged: []string{"hour"}}},
		{name: "an added window is only added",
			old: "windows:\n", new: "windows:\n  - {name: day, stream: temp, type: tumbling, size: 24h, aggregates: [count]}\n",
			windows: Changes{Added: []string{"day"}, Unchanged: []string{"hour", "minute"}}},
		{name: "a removed window's state is discarded",
			old: "  - name: hour\n    stream: temp\n    type: tumbling\n    size: 1h\n    aggregates: [max(v)]\n", new: "",
			windows: Changes{Removed: []string{"hour"}, Unchanged: []string{"minute"}}, discard: []string{"hour"}},
		{name: "a new key discards every window on the stream",
			old: "key: {topic_segment: 1}", new: "key: {field: id}",
			windows: Changes{Unchanged: []string{"hour", "minute"}}, streams: []string{"temp"}, discard: []string{"hour", "minute"}},
		{name: "a new topic filter discards every window on the stream",
			old: "topic: plant/+/temp", new: "topic: site/+/temp",
			windows: Changes{Unchanged: []string{"hour", "minute"}}, streams: []string{"temp"}, discard: []string{"hour", "minute"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(diffFile, tt.old) {
				t.Fatalf("the device has no %q to edit", tt.old)
			}
			o := parseDiffDevice(t, "a", diffFile)
			n := parseDiffDevice(t, "a", strings.Replace(diffFile, tt.old, tt.new, 1))
			d := DiffDevices([]*Device{o}, []*Device{n})
			c := d.Devices["a"]
			if c == nil {
				t.Fatalf("the device did not change: %+v", d)
			}
			if !reflect.DeepEqual(c.Windows, tt.windows) {
				t.Errorf("windows: got %+v, want %+v", c.Windows, tt.windows)
			}
			if !reflect.DeepEqual(c.Streams.Changed, tt.streams) {
				t.Errorf("changed streams: got %v, want %v", c.Streams.Changed, tt.streams)
			}
			if !reflect.DeepEqual(c.Discard, tt.discard) {
				t.Errorf("discarded: got %v, want %v", c.Discard, tt.discard)
			}
		})
	}
}

func TestRestartNeededNamesEveryChangedDaemonSetting(t *testing.T) {
	a := &Daemon{DataDir: "/var/lib/edged", Broker: Broker{URL: "tcp://localhost:1883"}}
	b := *a
	b.Devices = []*Device{{ID: "x"}}
	if got := RestartNeeded(a, &b); len(got) != 0 {
		t.Fatalf("devices are applied live, got %v", got)
	}
	b.DataDir = "/srv/edged"
	b.Broker.URL = "tcp://other:1883"
	b.Limits.MaxInflight = 7
	if got, want := RestartNeeded(a, &b), []string{"data_dir", "limits", "broker"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Every setting of the daemon file is either compared by RestartNeeded or is the
// device list; a new one must be added there, or a reload would ignore it.
func TestRestartNeededComparesEveryDaemonField(t *testing.T) {
	compared := map[string]bool{"Path": true, "Devices": true, "pos": true}
	a := &Daemon{}
	typ := reflect.TypeOf(*a)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if compared[f.Name] {
			continue
		}
		b := &Daemon{}
		v := reflect.ValueOf(b).Elem().Field(i)
		if !f.IsExported() {
			t.Fatalf("unexported field %s: say in this test why RestartNeeded may skip it", f.Name)
		}
		setNonZero(t, v)
		if len(RestartNeeded(a, b)) != 1 {
			t.Errorf("RestartNeeded does not compare %s", f.Name)
		}
	}
}

// setNonZero sets v, or its first settable leaf, to something other than zero.
func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		setNonZero(t, v.Field(0))
	default:
		t.Fatalf("cannot set a %s", v.Kind())
	}
}
