package e2e

import (
	"context"
	"encoding/json"
	"html"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
)

// TestStatusPageInHeadlessChromium runs `edged demo` with one sensor falling silent,
// waits until /status says it is idle and has lag history, then loads the page in
// headless Chromium and checks the rendered DOM: the silent sensor's row says idle
// and the lag plot has points, and a key's link leads to its /explain. A screenshot
// is saved as an artifact.
func TestStatusPageInHeadlessChromium(t *testing.T) {
	t.Parallel()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("SKIPPED: no `chromium` on PATH, so the status page cannot be tested in a browser (install it: apt-get install -y chromium)")
	}
	bin := demoBuild(t)
	httpAddr, brokerAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "demo", "--sensors", "4", "--rate", "5", "--silent", "1", "--silent-after", "2s",
		"--status-every", "1h", "--http", httpAddr, "--listen", brokerAddr)
	var stderr broker.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})

	// The demo's silent sensor is the last one; its idle_timeout is 3s.
	base := "http://" + httpAddr + "/"
	silent := waitForIdleStream(t, base+"status", &stderr)
	t.Logf("silent stream %q is idle in /status", silent)

	dom := chromiumRun(t, chromium, "--dump-dom", base)
	row := regexp.MustCompile(`<tr class="(idle|active)" data-stream="` + regexp.QuoteMeta(silent) + `">`).FindStringSubmatch(dom)
	if row == nil || row[1] != "idle" {
		t.Errorf("the page does not show stream %s as idle (row %v); DOM:\n%s", silent, row, dom)
	}
	if n := strings.Count(dom, `<circle class="pt"`); n < 2 {
		t.Errorf("the lag plot has %d points, want at least 2; DOM:\n%s", n, dom)
	}
	// The demo's readings arrive out of order: its stream definition's delay row
	// has readings and quantiles.
	delay := regexp.MustCompile(`<tr class="delay" data-definition="[^"]+">(?:<td class="l">[^<]*</td>){3}<td>[1-9]\d*</td>(?:<td>\d+</td>){5}`)
	if !delay.MatchString(dom) {
		t.Errorf("the page has no delay row with readings and quantiles; DOM:\n%s", dom)
	}

	followExplainLink(t, chromium, base, dom)

	dir := os.Getenv("EDGED_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := filepath.Join(dir, "status-page.png")
	chromiumRun(t, chromium, "--screenshot="+shot, base, "--window-size=1200,800")
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Errorf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot of the status page: %s", shot)
}

// followExplainLink follows, in Chromium, the first link of the windows table to a
// key's /explain, and checks the JSON it lands on explains that key.
func followExplainLink(t *testing.T, chromium, base, dom string) {
	t.Helper()
	m := regexp.MustCompile(`<a class="explain" href="(explain\?device=[^"]*&amp;key=[^"]*)">([^<]*)</a>`).FindStringSubmatch(dom)
	if m == nil {
		t.Errorf("the windows table links no key to /explain; DOM:\n%s", dom)
		return
	}
	link, key := html.UnescapeString(m[1]), html.UnescapeString(m[2])
	page := chromiumRun(t, chromium, "--dump-dom", base+link)
	pre := regexp.MustCompile(`(?s)<pre[^>]*>(.*)</pre>`).FindStringSubmatch(page)
	if pre == nil {
		t.Fatalf("following %s: no JSON in the page:\n%s", link, page)
	}
	var e struct {
		Window  string `json:"window"`
		Key     string `json:"key"`
		State   string `json:"state"`
		Windows []struct {
			State string `json:"state"`
			Why   string `json:"why"`
		} `json:"windows"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(pre[1])), &e); err != nil {
		t.Fatalf("following %s: %v:\n%s", link, err, pre[1])
	}
	if e.Key != key || e.State == "" || len(e.Windows) == 0 || e.Windows[0].Why == "" {
		t.Errorf("following %s: the explanation of key %q is %+v", link, key, e)
	}
	t.Logf("followed %s: key %s, %d windows, the first %s", link, e.Key, len(e.Windows), e.Windows[0].State)
}

// waitForIdleStream polls /status until some stream is idle and the lag history
// has at least two samples, and returns that stream.
func waitForIdleStream(t *testing.T, url string, stderr *broker.SyncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		var st struct {
			Streams []struct {
				Stream string `json:"stream"`
				Idle   bool   `json:"idle"`
			} `json:"streams"`
			Lag struct {
				Times []int64 `json:"times"`
			} `json:"lag_history"`
		}
		resp, err := http.Get(url)
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		if err != nil {
			last = err.Error()
		} else {
			last = ""
			for _, s := range st.Streams {
				if s.Idle && len(st.Lag.Times) >= 2 {
					return s.Stream
				}
			}
			b, _ := json.Marshal(st)
			last = string(b)
		}
		time.Sleep(200 * time.Millisecond) // polling a condition, with the deadline above
	}
	t.Fatalf("no idle stream with lag history in /status within 30s; last: %s\nstderr:\n%s", last, stderr.String())
	return ""
}

// chromiumRun runs headless Chromium on url with a fresh profile and returns its stdout.
func chromiumRun(t *testing.T, chromium, action, url string, extra ...string) string {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=8000", action}
	args = append(append(args, extra...), url)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	c := exec.CommandContext(ctx, chromium, args...)
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		t.Fatalf("chromium %s %s: %v\nstderr:\n%s", action, url, err, errOut.String())
	}
	return out.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
