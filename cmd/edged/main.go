// Command edged is the event-time stream processor for edge gateways. Each
// subcommand is a thin shell over the packages that do the work.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/edged/edged/persist"
)

const usage = `edged - event-time windows over MQTT sensor feeds, for edge gateways

Usage:
  edged run      --config FILE [--data DIR] [--reset-state]
                                                       run the daemon (--reset-state: start empty on refused state)
  edged demo                                           run the self-contained demo (embedded broker + simulator)
  edged validate --config FILE                         check a config and every device file; print all errors
  edged replay   --config FILE --input FILE.jsonl      deterministic replay of recorded traffic
  edged record   --config FILE --output FILE.jsonl     record live traffic in the replay format
  edged tune     --config FILE --input FILE.jsonl      measure disorder in a recording; recommend max_out_of_orderness and idle_timeout
  edged simulate --broker URL [...]                    publish a synthetic out-of-order sensor feed
  edged inspect  --data DIR [--device D] [--key K]     show persisted state (read-only)
  edged explain  --data DIR --window W --key K         why a window of a stopped edged has or has not fired
  edged fleet    push|status --kv URL [...]             device files for many gateways in a NATS key-value bucket
  edged prune    --config FILE [--data DIR] [--dry-run]
                                                       delete the state of devices no longer configured (edged stopped)
  edged version                                        print the version, commit and Go version

Run 'edged help <command>' for the flags of a command.
`

// exitError carries the process exit code for errors that already told the user
// what went wrong (e.g. the list of config errors).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exitRefused is the exit code of a command that refused damaged state
// (persist.ErrDamaged): restarting cannot help, so the systemd unit does not.
const exitRefused = 3

// usageError is a command line that cannot mean anything: exit 2, as for a bad flag.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

var commands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"run":      runCmd,
	"demo":     demoCmd,
	"validate": validateCmd,
	"replay":   replayCmd,
	"record":   recordCmd,
	"tune":     tuneCmd,
	"simulate": simulateCmd,
	"inspect":  inspectCmd,
	"explain":  explainCmd,
	"fleet":    fleetCmd,
	"prune":    pruneCmd,
	"version":  versionCmd,
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "--version", "-version":
		args = []string{"version"}
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage)
			return 0
		}
		args = []string{args[1], "-h"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "edged: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	err := cmd(args[1:], stdout, stderr)
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "edged %s: %v\nRun 'edged help %s' for its flags.\n", args[0], err, args[0])
		return 2
	case errors.Is(err, persist.ErrDamaged):
		fmt.Fprintf(stderr, "edged %s: %v\n", args[0], err)
		return exitRefused
	}
	fmt.Fprintf(stderr, "edged %s: %v\n", args[0], err)
	return 1
}

// flagSet is a command's flags. Its Parse puts -h's help on stdout and reports a bad
// flag or a stray argument once, on stderr, as a usage error (exit 2).
type flagSet struct {
	*flag.FlagSet
	stdout, stderr io.Writer
	out            bytes.Buffer
}

func newFlags(name string, stdout, stderr io.Writer) *flagSet {
	f := &flagSet{FlagSet: flag.NewFlagSet("edged "+name, flag.ContinueOnError), stdout: stdout, stderr: stderr}
	f.SetOutput(&f.out)
	return f
}

func (f *flagSet) Parse(args []string) error {
	err := f.FlagSet.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.stdout.Write(f.out.Bytes())
		return err
	case err != nil:
		f.stderr.Write(f.out.Bytes())
		return exitError{2}
	case f.NArg() > 0:
		fmt.Fprintf(f.stderr, "%s: unexpected argument %q (every option is a --flag)\n", f.Name(), f.Arg(0))
		f.SetOutput(f.stderr)
		f.Usage()
		return exitError{2}
	}
	return nil
}
