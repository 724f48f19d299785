package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/edged/edged/configs"
)

func TestDemoResultLinesAreReadable(t *testing.T) {
	cases := []struct {
		name, payload, want string
	}{
		{"on time", `{"device":"demo","window":"per-5s","key":"s-3","start":0,"end":5000,"revision":0,"kind":"on_time",` +
			`"values":{"count":10,"avg_temp":21.4333333,"min_temp":null},"watermark":4999,"emitted_at":5600}`,
			"result  demo/per-5s  s-3    [" + demoTime(0) + ", " + demoTime(5000) + ")  count=10 avg_temp=21.43 min_temp=-  on-time"},
		{"late update", `{"device":"demo","window":"per-5s","key":"s-12","start":5000,"end":10000,"revision":2,"kind":"late_update",` +
			`"values":{"count":11},"watermark":11000,"emitted_at":11500}`,
			"result  demo/per-5s  s-12   [" + demoTime(5000) + ", " + demoTime(10000) + ")  count=11  late rev 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := fastjson.Parse(c.payload)
			if err != nil {
				t.Fatal(err)
			}
			if got := formatResult(v); got != c.want {
				t.Errorf("line\n%q, want\n%q", got, c.want)
			}
		})
	}
}

func TestDemoSubscribesToEveryWindowOutput(t *testing.T) {
	cfg, err := configs.Embedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	subs := demoResultFilters(cfg)
	if len(subs) != 1 || subs[0].Filter != "edged/+/+/+" {
		t.Errorf("filters %+v, want edged/+/+/+", subs)
	}
}

func TestDemoMovesToAFreePortWhenTheDefaultIsTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().String()
	cases := []struct {
		name, flag, def string
	}{
		{"flag wins", "127.0.0.1:1234", taken},
		{"taken default", "", taken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var msg bytes.Buffer
			got, err := demoAddr(c.flag, c.def, "broker", &msg)
			if err != nil {
				t.Fatal(err)
			}
			if c.flag != "" && got != c.flag || c.flag == "" && (got == taken || !strings.Contains(msg.String(), "is taken")) {
				t.Errorf("address %s (message %q) for flag %q and default %s", got, msg.String(), c.flag, c.def)
			}
		})
	}
}
