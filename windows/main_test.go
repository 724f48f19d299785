package windows_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs rapid's property tests with at least 200 cases and a fixed
// seed (rapid logs it on failure), without fail files, unless -rapid.checks, -rapid.seed or their
// RAPID_* variables say otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["rapid.checks"] && os.Getenv("RAPID_CHECKS") == "" {
		_ = flag.Set("rapid.checks", "200")
	}
	if !set["rapid.seed"] && os.Getenv("RAPID_SEED") == "" {
		_ = flag.Set("rapid.seed", "20241202")
	}
	// The logged seed reproduces a failure; fail files would litter testdata/.
	if !set["rapid.nofailfile"] {
		_ = flag.Set("rapid.nofailfile", "true")
	}
	os.Exit(m.Run())
}
