package mqtt

// Message is one MQTT message delivered to a Client's handler.
type Message struct {
	Topic     string
	Payload   []byte // owned by the Message: the client does not reuse it
	QoS       byte
	Duplicate bool // the broker may have delivered it before (QoS 1 redelivery)
	ack       func()
	conn      *bufferedConn // QoS 1 on a plain TCP connection: acknowledged there, as id
	id        uint16
}

// NewMessage builds a Message, e.g. for replay or tests; ack may be nil.
func NewMessage(topic string, payload []byte, qos byte, duplicate bool, ack func()) *Message {
	return &Message{Topic: topic, Payload: payload, QoS: qos, Duplicate: duplicate, ack: ack}
}

// Ack acknowledges the message to the broker (PUBACK for QoS 1) when the
// client uses manual ack; otherwise, and for QoS 0, it does nothing. Call it
// once, from any goroutine, after the message's effect is durable: an
// unacknowledged QoS 1 message of a persistent session is redelivered after a
// reconnect. An ack sent while the connection is down is lost, and the broker
// redelivers the message.
func (m *Message) Ack() {
	if m.conn != nil {
		m.conn.puback(m.id)
		return
	}
	if m.ack != nil {
		m.ack()
	}
}

// Subscription is a topic filter and the QoS to subscribe with.
type Subscription struct {
	Filter string
	QoS    byte
}
