package actor

import (
	"github.com/asynkron/protoactor-go/internal/queue/mpsc"
)

func NewPriorityGoringQueue() *priorityQueue {
	return NewPriorityQueue(func() queue {
		q := &unboundedMailboxQueue{}
		q.userMailbox.Init(10)
		return q
	})
}

//goland:noinspection ALL
func UnboundedPriority(mailboxStats ...MailboxMiddleware) MailboxProducer {
	return func() Mailbox {
		return newDefaultMailbox(NewPriorityGoringQueue(), mailboxStats)
	}
}

func NewPriorityMpscQueue() *priorityQueue {
	return NewPriorityQueue(func() queue {
		return mpsc.New()
	})
}

func UnboundedPriorityMpsc(mailboxStats ...MailboxMiddleware) MailboxProducer {
	return func() Mailbox {
		return newDefaultMailbox(NewPriorityMpscQueue(), mailboxStats)
	}
}
