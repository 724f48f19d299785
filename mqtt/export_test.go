package mqtt

import "time"

// NumClients is the number of client connections the embedded broker has.
func (e *Embedded) NumClients() int { return e.s.NumClients() }

// ReadsHeldBack reports whether the reader of the client's latest connection has
// stayed out of read(2) for a while (always false where there is no hold watch).
func (c *Client) ReadsHeldBack() bool {
	bc := c.conn.Load()
	return bc != nil && bc.watch != nil && bc.watch.heldBack(100*time.Millisecond)
}

// GivenUp reports whether the client's latest connection was given up as lost.
func (c *Client) GivenUp() bool {
	bc := c.conn.Load()
	return bc != nil && bc.givenUp()
}
