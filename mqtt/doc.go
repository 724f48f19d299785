// Package mqtt is edged's edge to MQTT: a paho client wrapper (connect with
// TLS and credentials, auto-reconnect with backoff, resubscribe, manual ack,
// asynchronous publish), the extraction of event time, key and values from
// JSON payloads, MQTT topic matching, the escaping of data-derived topic
// levels and the validation of topics before publishing, and an optional
// embedded broker.
//
// Other packages see only edged's own types (Message, Reading, ...): no paho
// or fastjson type leaves this package. It may import paho, fastjson, the
// standard library, golang.org/x/sys/unix (the hold watch's poll(2)) and, for
// embedded.go only, nats-server. Of edged it imports only internal/escape (topic
// levels) and internal/redact (URLs in logs), which import nothing but the
// standard library.
package mqtt
