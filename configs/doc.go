// Package configs is edged's configuration model: the daemon file, one file per
// device, strict YAML decoding that keeps line numbers, defaults applied in one
// step (defaults.go), and validation that reports every problem at once as
// `file:line: field: reason`. It also builds the pure parts the runtime needs
// (watermark.Config, windows.OperatorConfig) so that a config that validates
// can be run without further checks, and says what a new config changes
// (diff.go, diff_daemon.go) so a live reload touches only that.
//
// The YAML lives beside the code: examples/ (a commented daemon file and two
// device files) and demo/ (embedded in the binary, see Embedded).
//
// configs may import watermark/, windows/, internal/redact (a URL in a message),
// yaml.v3 and the standard library. It
// must not import mqtt/, persist/, actors/ or anything that does I/O beyond
// reading the config and TLS files.
package configs
