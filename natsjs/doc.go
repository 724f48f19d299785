// Package natsjs is edged's publisher to NATS JetStream: a connection that
// reconnects by itself, subjects built from values that may hold anything, and
// batches of messages published with their message ids, acknowledged as one.
//
// No nats.go type leaves this package. It must not import edged's actors or
// configs: callers pass plain options. Of edged it imports internal/escape
// (subject tokens) and internal/redact (server URLs in errors).
package natsjs
