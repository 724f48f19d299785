// Package escape writes values taken from data into syntaxes in which some bytes
// mean something: one level of an MQTT topic or one token of a NATS subject
// (percent-escaping, the bytes kept decided by the caller: mqtt and natsjs), and
// a JSON string (the result and late-record encodings of actors, the replay
// files of internal/sim). It imports only the standard library, so every layer
// may use it.
package escape
