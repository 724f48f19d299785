package workers

import (
	"log/slog"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// BenchmarkLiveChain is the live dispatcher under edged's shape of load: readings
// arrive from outside at 20,000 a second, one after another for 1,000 sensors, and
// each goes through one device actor to a sensor's first actor and on to its second,
// nearly always finding the mailbox idle. It reports the process's CPU time per
// reading (cpu-ns/msg), which on a shared machine varies far less than wall time:
//
//	go test -run '^$' -bench LiveChain -benchtime 40000x ./actors/workers/
func BenchmarkLiveChain(b *testing.B) {
	const sensors, perTick, tick = 1000, 20, time.Millisecond
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	d := New()
	props := func(r actor.ReceiveFunc) *actor.Props {
		return actor.PropsFromFunc(r, actor.WithDispatcher(d))
	}
	var done atomic.Int64
	finished := make(chan struct{})
	n := int64(b.N)
	second, first := make([]*actor.PID, sensors), make([]*actor.PID, sensors)
	for i := range sensors {
		second[i] = system.Root.Spawn(props(func(ctx actor.Context) {
			if _, ok := ctx.Message().(int); ok && done.Add(1) == n {
				close(finished)
			}
		}))
		next := second[i]
		first[i] = system.Root.Spawn(props(func(ctx actor.Context) {
			if m, ok := ctx.Message().(int); ok {
				ctx.Send(next, m)
			}
		}))
	}
	device := system.Root.Spawn(props(func(ctx actor.Context) {
		if m, ok := ctx.Message().(int); ok {
			ctx.Send(first[m%sensors], m)
		}
	}))

	t := time.NewTicker(tick)
	defer t.Stop()
	before := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; {
		<-t.C
		for range perTick {
			if i < b.N {
				system.Root.Send(device, i)
				i++
			}
		}
	}
	<-finished
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/msg")
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
