package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/fleet"
	"github.com/edged/edged/natsjs"
)

const fleetUsage = `edged fleet - device files for a fleet of gateways, in a NATS JetStream key-value bucket

Usage:
  edged fleet push   --kv URL [--bucket B] [--prefix P] [--creds FILE] (--host H | --all) FILE...
                     validate device files like edged validate, then write them to the bucket:
                     under {prefix}.{host}.devices.<file> for gateway H, or {prefix}.all.devices.<file>
                     for every gateway; an invalid file writes nothing
  edged fleet status --kv URL [--bucket B] [--prefix P] [--creds FILE]
                     list the gateways, the revision each applied and its health

Flags come before the files. Credentials: --creds FILE (a .creds file), or user:password@
or token@ in the URL.
`

// fleetTimeout bounds a fleet command's work with the bucket.
const fleetTimeout = 30 * time.Second

func fleetCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, fleetUsage)
		return exitError{2}
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, fleetUsage)
		return flag.ErrHelp
	case "push":
		return fleetPushCmd(args[1:], stdout, stderr)
	case "status":
		return fleetStatusCmd(args[1:], stdout, stderr)
	}
	return usageErrorf("unknown subcommand %q: push or status", args[0])
}

// fleetFlags are the flags that say which bucket.
type fleetFlags struct {
	*flagSet
	url, bucket, prefix, creds *string
}

func newFleetFlags(name string, stdout, stderr io.Writer) fleetFlags {
	fs := newFlags("fleet "+name, stdout, stderr)
	return fleetFlags{flagSet: fs,
		url:    fs.String("kv", "", "NATS server URL of the fleet bucket (nats://host:4222; a comma-separated list for a cluster)"),
		bucket: fs.String("bucket", configs.DefaultFleetBucket, "key-value bucket"),
		prefix: fs.String("prefix", configs.DefaultFleetPrefix, "first key tokens, as fleet.kv.prefix of the gateways"),
		creds:  fs.String("creds", "", "a NATS .creds file"),
	}
}

// open connects and opens the bucket (push creates it).
func (f fleetFlags) open(ctx context.Context, create bool) (*natsjs.Publisher, *natsjs.KV, error) {
	if *f.url == "" {
		return nil, nil, usageErrorf("--kv is required")
	}
	p, err := fleet.Dial(configs.FleetKV{URL: *f.url, CredsFile: *f.creds}, "edged-fleet-cli", newLogger(logQuiet, io.Discard))
	if err != nil {
		return nil, nil, err
	}
	kv, err := fleet.OpenBucket(ctx, p, *f.bucket, create)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	return p, kv, nil
}

func fleetPushCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFleetFlags("push", stdout, stderr)
	host := fs.String("host", "", "the gateway the files are for (its fleet.kv.host, by default its host name)")
	all := fs.Bool("all", false, "the files are for every gateway")
	// Files follow the flags, so the stray-argument check of flagSet.Parse does not apply.
	if err := fs.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.stdout.Write(fs.out.Bytes())
			return err
		}
		fs.stderr.Write(fs.out.Bytes())
		return exitError{2}
	}
	files := fs.Args()
	switch {
	case *fs.url == "":
		return usageErrorf("--kv is required")
	case (*host == "") == !*all:
		return usageErrorf("give one of --host H or --all")
	case *host == configs.FleetAllHost:
		return usageErrorf("--host %s: that host token is every gateway's; use --all", *host)
	case len(files) == 0:
		return usageErrorf("name the device files to push")
	}
	entries, errs := fleet.ReadFiles(files)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(stderr, e.Error())
		}
		fmt.Fprintf(stderr, "%d error(s); nothing written\n", len(errs))
		return exitError{1}
	}
	if *all {
		*host = configs.FleetAllHost
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	p, kv, err := fs.open(ctx, true)
	if err != nil {
		return err
	}
	defer p.Close()
	keys := configs.FleetKeys{Prefix: *fs.prefix}
	for _, e := range entries {
		key := keys.Device(*host, e.Key)
		rev, err := kv.Put(ctx, key, []byte(e.Data))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: revision %d\n", key, rev)
	}
	return nil
}

func fleetStatusCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFleetFlags("status", stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	p, kv, err := fs.open(ctx, false)
	if err != nil {
		return err
	}
	defer p.Close()
	entries, err := kv.Snapshot(ctx, *fs.prefix+".>")
	if err != nil {
		return err
	}
	rows := fleet.Rows(configs.FleetKeys{Prefix: *fs.prefix}, entries, time.Now())
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "HOST\tAPPLIED\tLATEST\tSTATE\tREPORTED\tHEALTH")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\n", r.Host, r.Applied, r.Latest, r.State, r.Reported, r.Health)
	}
	return w.Flush()
}
