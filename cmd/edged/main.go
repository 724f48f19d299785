// Command edged is the event-time stream processor for edge gateways. Each
// subcommand is a thin shell over the packages that do the work.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `edged - event-time windows over MQTT sensor feeds, for edge gateways

Usage:
  edged run      --config FILE [--data DIR] [--reset-state]
                                                       run the daemon (--reset-state: start empty on refused state)
  edged demo                                           run the self-contained demo (embedded broker + simulator)
  edged validate --config FILE                         check a config and every device file; print all errors
  edged replay   --config FILE --input FILE.jsonl      deterministic replay of recorded traffic
  edged record   --config FILE --output FILE.jsonl     record live traffic in the replay format
  edged simulate --broker URL [...]                    publish a synthetic out-of-order sensor feed
  edged inspect  --data DIR [--device D] [--key K]     show persisted state (read-only)

Run 'edged <command> -h' for the flags of a command.
`

// exitError carries the process exit code for errors that already told the user
// what went wrong (e.g. the list of config errors).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

var commands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"run":      runCmd,
	"demo":     demoCmd,
	"validate": validateCmd,
	"replay":   replayCmd,
	"record":   recordCmd,
	"simulate": simulateCmd,
	"inspect":  inspectCmd,
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "edged: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	err := cmd(args[1:], stdout, stderr)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	fmt.Fprintf(stderr, "edged %s: %v\n", args[0], err)
	return 1
}

// newFlags is a FlagSet that reports its errors to stderr and never exits.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("edged "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
