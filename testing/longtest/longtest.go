// Package longtest marks the tests that `make test` leaves out and `make test-long`
// runs: the fault drills, floods and soaks that take a minute or more each. The two
// targets split the tests by name, so none falls between them: `make test` skips
// the tests named TestLong... (go test -skip) and `make test-long` runs exactly
// those. `make test` does not use -short: rapid runs a fifth of its property checks
// under it. A plain `go test -short` skips the long tests too.
//
// It is test support: no production package may import it.
package longtest

import (
	"strings"
	"testing"
)

// Prefix starts the name of every long test; `make test-long` selects them by it.
const Prefix = "TestLong"

// Skip skips t under -short, saying which target runs it. A long test calls it
// first. It fails a test whose name lacks Prefix: `make test` would run it and
// `make test-long` would not.
func Skip(t testing.TB) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), Prefix) {
		t.Fatalf("%s is a long test: its name must start with %s for `make test-long` to run it", t.Name(), Prefix)
	}
	if testing.Short() {
		t.Skip("long test: `make test-long` runs it")
	}
}
