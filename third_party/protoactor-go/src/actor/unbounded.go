package actor

import (
	"github.com/asynkron/protoactor-go/internal/queue/goring"
)

type unboundedMailboxQueue struct {
	userMailbox goring.Queue
}

func (q *unboundedMailboxQueue) Push(m interface{}) {
	q.userMailbox.Push(m)
}

func (q *unboundedMailboxQueue) Pop() interface{} {
	m, o := q.userMailbox.Pop()
	if o {
		return m
	}

	return nil
}

// Unbounded returns a producer which creates an unbounded mailbox
func Unbounded(mailboxStats ...MailboxMiddleware) MailboxProducer {
	middlewares := middlewaresOf(mailboxStats)
	return func() Mailbox {
		// One allocation for the mailbox and its queue: every actor has both.
		mb := &struct {
			defaultMailbox
			q unboundedMailboxQueue
		}{}
		// 4 slots to start, not 10: most actors wait with an empty mailbox, and the
		// ring still doubles when full.
		mb.q.userMailbox.Init(4)
		mb.systemMailbox.Init()
		mb.userMailbox = &mb.q
		mb.middlewares = middlewares
		return &mb.defaultMailbox
	}
}
