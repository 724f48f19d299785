package mqtt

// NumClients is the number of client connections the embedded broker has.
func (e *Embedded) NumClients() int { return e.s.NumClients() }
