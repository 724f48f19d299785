package mqtt

import (
	"errors"
	"strings"
	"sync"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// errSessionReset fails publishes paho dropped unconfirmed with its store.
var errSessionReset = errors.New("the session was reset before the broker confirmed the publish")

// ackStore is paho's memory store, watched so that a publish is reported done only
// when the broker confirmed it. A publish token does not tell: when a connection
// drops, paho keeps the unconfirmed QoS 1 and 2 publishes in its store and resends
// them after the reconnect under new tokens, completing the old ones without an error
// (messageIds.claimID). paho deletes a publish from the store only when its PUBACK
// (PUBCOMP for QoS 2) arrives, and before it completes the token.
type ackStore struct {
	paho.Store

	mu    sync.Mutex
	next  *pendingPub            // taken by the next outbound publish stored
	byKey map[string]*pendingPub // store key -> the publish waiting for its PUBACK
}

// pendingPub is one publish waiting for the broker's confirmation.
type pendingPub struct {
	key   string
	acked chan error // nil on the PUBACK, an error if paho dropped it; buffered
}

func newAckStore() *ackStore {
	return &ackStore{Store: paho.NewMemoryStore(), byKey: map[string]*pendingPub{}}
}

// expect makes p the publish that paho stores next; nil stops expecting. The caller
// serialises publishes so that the next one stored is its own.
func (s *ackStore) expect(p *pendingPub) {
	s.mu.Lock()
	s.next = p
	s.mu.Unlock()
}

// forget stops waiting for p (its publish failed and is reported so).
func (s *ackStore) forget(p *pendingPub) {
	s.mu.Lock()
	if s.byKey[p.key] == p {
		delete(s.byKey, p.key)
	}
	s.mu.Unlock()
}

func (s *ackStore) Put(key string, m packets.ControlPacket) {
	p, ok := m.(*packets.PublishPacket)
	if ok && p.Qos == 1 && strings.HasPrefix(key, "i.") {
		// An incoming QoS 1 publish is kept by paho only for its ack to delete (a
		// reconnect discards it), and Message.Ack mostly does not go through paho.
		return
	}
	if ok && strings.HasPrefix(key, "o.") {
		s.mu.Lock()
		if p := s.next; p != nil {
			p.key, s.next = key, nil
			s.byKey[key] = p
		}
		s.mu.Unlock()
	}
	s.Store.Put(key, m)
}

// Del is called for an outbound key when the broker confirmed that message.
func (s *ackStore) Del(key string) {
	s.mu.Lock()
	if p, ok := s.byKey[key]; ok {
		delete(s.byKey, key)
		p.acked <- nil
	}
	s.mu.Unlock()
	s.Store.Del(key)
}

// Reset drops every stored message (a clean session): none will be confirmed.
func (s *ackStore) Reset() {
	s.mu.Lock()
	for k, p := range s.byKey {
		delete(s.byKey, k)
		p.acked <- errSessionReset
	}
	s.mu.Unlock()
	s.Store.Reset()
}
