package mqtt

import (
	"fmt"
	"slices"
)

func (c *Client) subscriptions() []Subscription {
	c.subsMu.Lock()
	defer c.subsMu.Unlock()
	return c.subs
}

// SetSubscriptions replaces what the client subscribes to: filters no longer
// wanted are unsubscribed (a persistent session would keep them across reconnects
// otherwise), new ones subscribed, and every later reconnection subscribes to subs.
// Messages on a new filter arrive at the Handler once the broker confirmed it. While
// disconnected it only records subs: the next connection subscribes to them, and a
// persistent session keeps the removed filters until a later call removes them.
// Concurrent calls must not overlap.
func (c *Client) SetSubscriptions(subs []Subscription) error {
	c.subsMu.Lock()
	old := c.subs
	c.subs = slices.Clone(subs)
	c.subsMu.Unlock()
	added, removed := diffSubscriptions(old, subs)
	if !c.Connected() {
		return nil
	}
	if len(added) > 0 {
		if err := c.subscribeTo(added); err != nil {
			return err
		}
	}
	if len(removed) > 0 {
		tok := c.pc.Unsubscribe(removed...)
		if !tok.WaitTimeout(c.timeout) {
			return fmt.Errorf("unsubscribing on %s: no answer within %s", c.url, c.timeout)
		}
		if err := tok.Error(); err != nil {
			return fmt.Errorf("unsubscribing %q on %s: %w", removed, c.url, err)
		}
	}
	return nil
}

// diffSubscriptions returns the subscriptions of new whose filter or QoS old lacks,
// and the filters of old that new lacks.
func diffSubscriptions(old, new []Subscription) (added []Subscription, removed []string) {
	had := map[string]byte{}
	for _, s := range old {
		had[s.Filter] = max(had[s.Filter], s.QoS)
	}
	wants := map[string]bool{}
	for _, s := range new {
		wants[s.Filter] = true
		if q, ok := had[s.Filter]; !ok || q < s.QoS {
			added = append(added, s)
		}
	}
	for _, s := range old {
		if !wants[s.Filter] && !slices.Contains(removed, s.Filter) {
			removed = append(removed, s.Filter)
		}
	}
	return added, removed
}
