package mqtt_test

import (
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// memory returns the heap in use and the resident set size, in bytes.
func memory() (heap, rss uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	status, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(status)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			rss = kb << 10
		}
	}
	return ms.HeapInuse, rss
}

func TestEmbeddedBrokerCarriesQoS0AndQoS1WithManualAck(t *testing.T) {
	heap0, rss0 := memory()
	e, err := mqtt.StartEmbedded(freeAddr(t), t.TempDir(), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close) // after the clients' cleanups
	if !strings.HasPrefix(e.URL(), "tcp://127.0.0.1:") {
		t.Fatalf("URL() = %q", e.URL())
	}
	in := make(inbox, 16)
	connect(t, mqtt.Options{URL: e.URL(), ClientID: "sub", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "sensors/#", QoS: 1}}})
	pub := connect(t, mqtt.Options{URL: e.URL(), ClientID: "pub", CleanSession: true})
	for _, qos := range []byte{0, 1} {
		publish(t, pub, "sensors/s-1/data", qos, "x")
		m := in.next(t)
		if string(m.Payload) != "x" || m.QoS != qos {
			t.Fatalf("got %+v, want x with QoS %d", m, qos)
		}
		m.Ack()
	}
	heap1, rss1 := memory()
	t.Logf("embedded broker with two clients: heap in use +%.1f MiB, RSS +%.1f MiB",
		float64(heap1-heap0)/(1<<20), float64(rss1-rss0)/(1<<20))
}

func TestEmbeddedBrokerRefusesWhatItCannotServe(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name, listen, want string
	}{
		{"ANonLoopbackAddress", "0.0.0.0:1883", `it listens on loopback only`},
		{"APortOfZero", "127.0.0.1:0", `the port must be a number from 1 to 65535`},
		{"APortInUse", busy.Addr().String(), `address already in use`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := mqtt.StartEmbedded(tt.listen, t.TempDir(), nil)
			if err == nil {
				e.Close()
				t.Fatalf("StartEmbedded(%q) succeeded", tt.listen)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// The embedded broker's store is its own: a persistent session survives a
// restart on the same directory.
func TestEmbeddedBrokerKeepsQueuedMessagesAcrossARestart(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	e, err := mqtt.StartEmbedded(addr, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := make(inbox, 16)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	opts := mqtt.Options{URL: e.URL(), ClientID: "sub", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "q", QoS: 1}}, Logger: testLogger(t)}
	sub, err := mqtt.Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	sub.Close(time.Second)
	// A message published before the broker has seen the subscriber go
	// would count as in flight to it, redelivered only after the ack wait.
	deadline := time.Now().Add(waitFor)
	for e.NumClients() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the broker still has %d clients", e.NumClients())
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	pub, err := mqtt.Connect(ctx, mqtt.Options{URL: e.URL(), CleanSession: true, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	publish(t, pub, "q", 1, "queued")
	pub.Close(time.Second)
	e.Close()

	e, err = mqtt.StartEmbedded(addr, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	connect(t, opts)
	if m := in.next(t); string(m.Payload) != "queued" {
		t.Fatalf("got %q, want queued", m.Payload)
	}
}

// The embedded broker is nats-server: besides MQTT it would open a NATS client
// port, unauthenticated. edged uses none, so the broker must listen on the MQTT
// address and nowhere else.
func TestEmbeddedBrokerListensOnItsMQTTAddressOnly(t *testing.T) {
	before := listeningPorts(t)
	addr := freeAddr(t)
	e, err := mqtt.StartEmbedded(addr, t.TempDir(), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	_, port, _ := net.SplitHostPort(addr)
	var opened []string
	for p := range listeningPorts(t) {
		if !before[p] {
			opened = append(opened, p)
		}
	}
	if len(opened) != 1 || opened[0] != port {
		t.Fatalf("the embedded broker opened listening ports %v; want only its MQTT port %s", opened, port)
	}
	// And it still carries MQTT without its NATS listener.
	in := make(inbox, 1)
	connect(t, mqtt.Options{URL: e.URL(), ClientID: "sub", Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "t", QoS: 1}}})
	pub := connect(t, mqtt.Options{URL: e.URL(), ClientID: "pub", CleanSession: true})
	publish(t, pub, "t", 1, "x")
	if m := in.next(t); string(m.Payload) != "x" {
		t.Fatalf("got %q, want x", m.Payload)
	}
}

// listeningPorts returns the TCP ports this process listens on, from the socket
// inodes of its file descriptors and the kernel's TCP tables.
func listeningPorts(t *testing.T) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc to list sockets: %v", err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(target, "socket:["); ok && err == nil {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	ports := map[string]bool{}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		body, err := os.ReadFile(table)
		if err != nil {
			continue // no IPv6
		}
		for line := range strings.Lines(string(body)) {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			hexPort := f[1][strings.LastIndexByte(f[1], ':')+1:]
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				ports[strconv.FormatUint(p, 10)] = true
			}
		}
	}
	return ports
}
