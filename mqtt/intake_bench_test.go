package mqtt_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

// BenchmarkIntake is a subscriber's live intake under edged's shape of load: a raw
// publisher sends b.N PUBLISH packets for 1,000 sensors through a private mosquitto,
// 20 every millisecond (20,000 msg/s), and the client hands each to its handler (which
// acknowledges a QoS 1 message on the connection, as edged does once it is durable).
// The publisher's packets are encoded beforehand and it allocates nothing per message,
// so allocs/msg and B/msg (the process's, over the run) are what paho and the client
// cost per message received. It also reports the process's CPU time per message
// (cpu-ns/msg), which on a shared machine varies far less than wall time:
//
//	go test -run '^$' -bench Intake -benchtime 40000x ./mqtt/
func BenchmarkIntake(b *testing.B) {
	for _, qos := range []byte{0, 1} {
		b.Run(fmt.Sprintf("qos%d", qos), func(b *testing.B) { benchIntake(b, qos) })
	}
}

func benchIntake(b *testing.B, qos byte) {
	const sensors, perTick, tick = 1000, 20, time.Millisecond
	br := broker.Start(b)
	n := int64(b.N)
	var received atomic.Int64
	done := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	sub, err := mqtt.Connect(ctx, mqtt.Options{
		URL: br.URL(), ClientID: "bench-sub", CleanSession: true, ManualAck: true,
		Logger:        slog.New(slog.DiscardHandler),
		Subscriptions: []mqtt.Subscription{{Filter: "sensors/+/data", QoS: qos}},
		Handler: func(m *mqtt.Message) {
			m.Ack()
			if received.Add(1) == n {
				close(done)
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close(time.Second)

	pub := rawPublisher(b, br.URL())
	ticks := make([][]byte, 0, b.N/perTick+1)
	var chunk []byte
	for i := range b.N {
		topic := fmt.Sprintf("sensors/s-%d/data", i%sensors)
		payload := fmt.Sprintf(`{"sensor":"s-%d","ts":%d,"temp":%d.5}`, i%sensors, 1_733_140_000_000+int64(i), 20+i%10)
		chunk = appendPublish(chunk, qos, uint16(i%65535+1), topic, payload)
		if (i+1)%perTick == 0 || i == b.N-1 {
			ticks = append(ticks, chunk)
			chunk = nil
		}
	}

	t := time.NewTicker(tick)
	defer t.Stop()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	allocs, bytes, cpu := mem.Mallocs, mem.TotalAlloc, cpuTime()
	b.ResetTimer()
	for _, c := range ticks {
		<-t.C
		if _, err := pub.Write(c); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(waitFor):
		b.Fatalf("received %d of %d messages within %s", received.Load(), n, waitFor)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/msg")
	runtime.ReadMemStats(&mem)
	b.ReportMetric(float64(mem.Mallocs-allocs)/float64(b.N), "allocs/msg")
	b.ReportMetric(float64(mem.TotalAlloc-bytes)/float64(b.N), "B/msg")
}

// rawPublisher connects to the broker at url with a hand-made CONNECT and discards
// what the broker sends back (its PUBACKs), so that publishing allocates nothing.
func rawPublisher(b *testing.B, url string) net.Conn {
	b.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	var body []byte
	body = appendString(body, "MQTT")
	body = append(body, 4, 0x02, 0, 60) // MQTT 3.1.1, clean session, keepalive 60 s
	body = appendString(body, "bench-pub")
	if _, err := conn.Write(append(appendLength([]byte{0x10}, len(body)), body...)); err != nil {
		b.Fatal(err)
	}
	var connack [4]byte
	if _, err := io.ReadFull(conn, connack[:]); err != nil || connack[0] != 0x20 || connack[3] != 0 {
		b.Fatalf("publisher's CONNACK: % x, %v", connack, err)
	}
	go io.Copy(io.Discard, conn)
	return conn
}

// appendPublish appends a PUBLISH packet to dst.
func appendPublish(dst []byte, qos byte, id uint16, topic, payload string) []byte {
	size := 2 + len(topic) + len(payload)
	if qos > 0 {
		size += 2
	}
	dst = appendLength(append(dst, 0x30|qos<<1), size)
	dst = appendString(dst, topic)
	if qos > 0 {
		dst = binary.BigEndian.AppendUint16(dst, id)
	}
	return append(dst, payload...)
}

// appendLength appends an MQTT remaining length.
func appendLength(dst []byte, n int) []byte {
	for {
		d := byte(n % 128)
		if n /= 128; n > 0 {
			d |= 0x80
		}
		if dst = append(dst, d); n == 0 {
			return dst
		}
	}
}

func appendString(dst []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(dst, uint16(len(s))), s...)
}

// cpuTime is the process's user and system CPU time so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
