package mqtt

import "testing"

func TestBrokerURLDefaultPorts(t *testing.T) {
	for raw, want := range map[string]string{
		"tcp://gw":          "gw:1883",
		"mqtt://gw":         "gw:1883",
		"mqtts://gw":        "gw:8883",
		"ssl://gw":          "gw:8883",
		"tls://gw:9999":     "gw:9999",
		"mqtts://u:p@gw":    "gw:8883",
		"wss://gw/mqtt":     "gw",
		"mqtts://[::1]":     "[::1]:8883",
		"mqtt://10.0.0.1:1": "10.0.0.1:1",
	} {
		u, err := parseBrokerURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if u.Host != want {
			t.Errorf("%s: host %q, want %q", raw, u.Host, want)
		}
	}
}
