package configs

import (
	"strings"
	"testing"
)

func TestAFleetBucketIsReadWithItsDefaultsAndItsTokenFile(t *testing.T) {
	d, err := loadDaemonDir(t, "fleet:\n  kv:\n    url: nats://127.0.0.1:4222\n    token_file: token\n", map[string]string{"token": "t0k\n"})
	if err != nil {
		t.Fatal(err)
	}
	k := d.Fleet.KV
	if !k.Enabled() || k.Bucket != DefaultFleetBucket || k.Prefix != DefaultFleetPrefix || k.Host != hostname() || k.Token != "t0k" {
		t.Errorf("fleet.kv = %+v", k)
	}
}

func TestBadFleetSettingsNameTheFieldAndReason(t *testing.T) {
	for _, tc := range []struct{ fleet, want string }{
		{"    url: nats://h:4222\n    host: all\n", `edged.yaml:4: fleet.kv.host: "all" is reserved`},
		{"    url: nats://h:4222\n    bucket: a.b\n", `edged.yaml:4: fleet.kv.bucket: "a.b" is not a key-value bucket name`},
		{"    url: nats://h:4222\n    prefix: a..b\n", `edged.yaml:4: fleet.kv.prefix: "a..b" is not valid in a key`},
		{"    url: mqtt://h:1883\n", `edged.yaml:3: fleet.kv.url: "mqtt://h:1883" must start with nats://`},
		{"    bucket: b\n", `edged.yaml:3: fleet.kv.bucket: is set but fleet.kv.url is not`},
		{"    url: nats://h:4222\n    token: x\n    username: u\n", `fleet.kv: set only one way to authenticate`},
	} {
		_, err := loadDaemonDir(t, "fleet:\n  kv:\n"+tc.fleet, map[string]string{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fleet.kv\n%s: got %v, want %q", tc.fleet, err, tc.want)
		}
	}
}

func TestFleetKeysAreTokensAHostIsOneToken(t *testing.T) {
	k := FleetKeys{Prefix: "edged"}
	if got := k.Device("gw1.example.com", "boiler.yaml"); got != "edged.gw1=2Eexample=2Ecom.devices.boiler.yaml" {
		t.Errorf("Device = %q", got)
	}
	if got := k.Devices("gw-1"); got != "edged.gw-1.devices.>" {
		t.Errorf("Devices = %q", got)
	}
	if got := k.Device(FleetAllHost, "b.yml"); got != "edged.all.devices.b.yml" {
		t.Errorf("Device(all) = %q", got)
	}
	if h, ok := k.StatusHost(k.Status("gw1.example.com")); !ok || h != "gw1.example.com" {
		t.Errorf("StatusHost = %q, %v", h, ok)
	}
	if _, ok := k.StatusHost("edged.gw1.devices.status.yaml"); ok {
		t.Error("a device key taken for a status key")
	}
	if h, f, ok := k.File("edged.all.devices.boiler.v2.yaml"); !ok || h != FleetAllHost || f != "boiler.v2.yaml" {
		t.Errorf("File = %q, %q, %v", h, f, ok)
	}
	if h, f, ok := k.File(k.Device("gw1.example.com", "a.yml")); !ok || h != "gw1.example.com" || f != "a.yml" {
		t.Errorf("File = %q, %q, %v", h, f, ok)
	}
	for _, bad := range []string{"a b.yaml", "x.json", ".yaml", "a..yaml"} {
		if CheckFleetFileName(bad) == nil {
			t.Errorf("file name %q accepted", bad)
		}
	}
}
