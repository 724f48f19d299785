// Package fleet runs the device files of a fleet of gateways from a NATS
// JetStream key-value bucket: on a gateway, Sync watches the gateway's keys and
// the shared ones, validates every revision as a local device file would be,
// hands a valid set to the daemon beside the local files, keeps the last good set
// in data_dir (the copy a restart without the bucket starts with) and reports
// what it applied under the gateway's status key. For `edged fleet`, ReadFiles
// validates the files a push writes and Rows compares what each gateway applied
// with the latest revisions in the bucket.
//
// The command line (flags, output) stays in cmd/edged; this package holds what
// the gateway and the command share about the bucket, its keys and the copy.
//
// It may import configs, natsjs and actors/status (the fleet status it reports);
// never actors, which only cmd/ and testing/ import: the running daemon comes in
// as the Daemon interface.
package fleet
