package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/edged/edged/testing/broker"
)

// mosquitto is a private broker for the live trials, configured like the
// end-to-end suites' (testing/broker, whose helper needs a testing.TB): the
// settings edged's no-loss promise relies on, on a free loopback port.
type mosquitto struct {
	cmd  *exec.Cmd
	url  string
	log  bytes.Buffer
	done chan struct{}
}

func startMosquitto(dir string) (*mosquitto, error) {
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		bin = "/usr/sbin/mosquitto"
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("mosquitto is not installed (install it, or run with -no-live)")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	lines := []string{
		fmt.Sprintf("listener %d 127.0.0.1", port),
		"allow_anonymous true",
		"persistence_location " + dir + "/",
		"log_dest stderr",
		"log_type error",
	}
	if os.Geteuid() == 0 {
		lines = append(lines, "user root")
	}
	lines = append(lines, broker.NoLossConfig...)
	conf := filepath.Join(dir, "mosquitto.conf")
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	m := &mosquitto{url: fmt.Sprintf("tcp://127.0.0.1:%d", port), done: make(chan struct{})}
	m.cmd = exec.Command(bin, "-c", conf)
	m.cmd.Stdout, m.cmd.Stderr = &m.log, &m.log
	if err := m.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		m.cmd.Wait()
		close(m.done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return m, nil
		}
		select {
		case <-m.done:
			return nil, fmt.Errorf("mosquitto exited at startup: %s", m.log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.stop()
			return nil, fmt.Errorf("mosquitto not accepting connections on port %d after 10s", port)
		}
	}
}

func (m *mosquitto) stop() { terminate(m.cmd.Process, m.done, 10*time.Second) }

// terminate sends p SIGTERM and kills it if it has not exited (done) within grace.
func terminate(p *os.Process, done <-chan struct{}, grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = p.Kill()
		<-done
	}
}
