package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/edged/edged/mqtt"
)

// restartWindows is the open windows the restart measurement restores.
const restartWindows = 100_000

// restart is how long `edged run` takes to come back with restartWindows open
// windows in its data dir.
type restart struct {
	firstMessage time.Duration // from exec to a message published at once being counted
	ready        time.Duration // from exec to /healthz 200
	restored     time.Duration // from exec to every saved key back (edged_window_keys_restoring 0)
	rss          float64       // the restarted daemon's peak RSS once every key is back, MiB
	steadyRSS    float64       // the replay that built the state, MiB
}

func (r *restart) String() string {
	return fmt.Sprintf("first message %s, healthz ready %s, every key back %s; peak RSS %.0f MiB (the replay that built the state: %.0f MiB)",
		r.firstMessage.Round(10*time.Millisecond), r.ready.Round(10*time.Millisecond), r.restored.Round(10*time.Millisecond), r.rss, r.steadyRSS)
}

// measureRestart replays one reading from each of restartWindows sensors into
// a data dir, leaving every window open, then starts a daemon on it and
// publishes one more reading at once: the daemon takes it only after restoring.
func measureRestart(dir string, o *options) (*restart, error) {
	feed := filepath.Join(dir, "restart.jsonl")
	// Two rounds of readings: the first holds every sensor (one round alone ends
	// at the span and leaves out those whose phase comes after its last reading).
	if err := generateFeed(feed, 2*restartWindows, restartWindows, 10); err != nil {
		return nil, err
	}
	sub := mustTemp(dir, "restart-")
	defer os.RemoveAll(sub)
	built, err := measureIn(sub, "replay", "process", feed, "-keep-open")
	if err != nil {
		return nil, err
	}
	mq, err := startMosquitto(mustTemp(dir, "mosquitto-"))
	if err != nil {
		return nil, err
	}
	defer mq.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pub, err := mqtt.Connect(ctx, mqtt.Options{
		URL: mq.url, ClientID: fmt.Sprintf("bench-restart-%d", time.Now().UnixNano()), CleanSession: true, Logger: discardLogger(),
	})
	if err != nil {
		return nil, err
	}
	defer pub.Close(time.Second)

	if _, err := o.edgedBinary(); err != nil { // built before the clock starts
		return nil, err
	}
	began := time.Now()
	d, err := startDaemon(sub, mq.url, 1, benchCommit, o, "", "")
	if err != nil {
		return nil, err
	}
	defer d.stop()
	// Within the window the replay left open: neither late nor a new window.
	payload := fmt.Sprintf(`{"sensor":"s-1","ts":%d,"temp":21.5,"hum":40.0}`, benchStart+500)
	published := make(chan error, 1)
	pub.Publish("sensors/s-1/data", 1, []byte(payload), func(err error) { published <- err })
	r := &restart{steadyRSS: built.MaxRSS}
	for r.firstMessage == 0 || r.ready == 0 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the restarted daemon did not take a message and report ready within 2 minutes (message taken after %s, healthz ready after %s; 0: not)",
				r.firstMessage.Round(10*time.Millisecond), r.ready.Round(10*time.Millisecond))
		}
		if r.firstMessage == 0 {
			in, _, err := scrape(d.metricsURL)
			if err != nil {
				return nil, err
			}
			if in > 0 {
				r.firstMessage = time.Since(began)
			}
		}
		if r.ready == 0 {
			resp, err := http.Get(d.healthURL)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				r.ready = time.Since(began)
			}
		}
		time.Sleep(10 * time.Millisecond) // polling the daemon
	}
	for {
		left, err := keysRestoring(d.metricsURL)
		if err != nil {
			return nil, err
		}
		if left == 0 {
			r.restored = time.Since(began)
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the restarted daemon still had %d keys to restore after 2 minutes", left)
		}
		time.Sleep(10 * time.Millisecond) // polling the daemon
	}
	if err := <-published; err != nil {
		return nil, err
	}
	if r.rss, err = procHWM(d.cmd.Process.Pid); err != nil {
		return nil, err
	}
	return r, d.stop()
}

// keysRestoring sums edged_window_keys_restoring: saved keys not yet back.
func keysRestoring(url string) (int64, error) {
	left, err := metricSum(url, "edged_window_keys_restoring")
	return int64(left), err
}

// metricSum is the sum of the samples of metric name (every label set) that the
// daemon at url exports.
func metricSum(url, name string) (float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var sum float64
	for line := range strings.Lines(string(body)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		f, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q: %w", url, line, err)
		}
		sum += f
	}
	return sum, nil
}
