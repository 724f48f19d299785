package actors

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Version is the release version, stamped by `make dist` with -ldflags -X. A plain
// `go build` leaves it empty and Build falls back to what the Go toolchain recorded.
var Version string

// BuildInfo says which edged this is: what an operator quotes in a bug report.
type BuildInfo struct {
	Version   string // release version, or "devel"
	Commit    string // VCS revision, with "-dirty" when built from a modified tree
	GoVersion string
}

// Build reads the version stamped at link time and the build info Go embeds.
func Build() BuildInfo {
	b := BuildInfo{Version: Version, Commit: "unknown", GoVersion: "unknown"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if b.Version == "" {
			b.Version = "devel"
		}
		return b
	}
	b.GoVersion = info.GoVersion
	if b.Version == "" {
		b.Version = info.Main.Version
	}
	if b.Version == "" || b.Version == "(devel)" {
		b.Version = "devel"
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.Commit != "unknown" {
		b.Commit += "-dirty"
	}
	return b
}

// buildInfoCollector is edged_build_info: constant 1, the build in its labels, so a
// fleet dashboard can tell which gateways run which release.
func buildInfoCollector() prometheus.Collector {
	b := Build()
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "edged_build_info",
		Help:        "Always 1; the labels say which edged build is running.",
		ConstLabels: prometheus.Labels{"version": b.Version, "commit": b.Commit, "goversion": b.GoVersion},
	}, func() float64 { return 1 })
}
