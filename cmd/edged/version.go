package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/edged/edged/actors"
)

func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	b := actors.Build()
	fmt.Fprintf(stdout, "edged %s\ncommit %s\n%s %s/%s\n", b.Version, b.Commit, b.GoVersion, runtime.GOOS, runtime.GOARCH)
	return nil
}
