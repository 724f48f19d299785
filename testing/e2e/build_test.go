package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// crashBuild returns cmd/edged built into a temp dir, once for the whole package:
// the tests run in parallel, and each go build would link it again. GOFLAGS from
// the environment apply, as for any go command. TestMain removes the binary.
func crashBuild(t testing.TB) string {
	t.Helper()
	bin, err := builtEdged()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var builtEdged = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "edged-e2e-")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "edged")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/edged/edged/cmd/edged").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building edged: %v\n%s", err, out)
	}
	return bin, nil
})

// buildDir holds the binary builtEdged made, if it made one.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
