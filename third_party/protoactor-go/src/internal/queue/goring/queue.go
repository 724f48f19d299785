package goring

import (
	"sync"
	"sync/atomic"
)

// ringBuffer's modulus is len(buffer), and head and tail are int32s: every actor's
// mailbox holds one, 16 bytes smaller so. A ring of 2^31 slots (32 GiB) would not
// fit them; it doubles from 4 only when full.
type ringBuffer struct {
	buffer     []interface{}
	head, tail int32
}

// Queue holds its ring by value: every actor has one, and the ring is only read
// and replaced under lock.
type Queue struct {
	len     int64
	content ringBuffer
	lock    sync.Mutex
}

// Init makes q an empty queue with room for initialSize-1 items, for a Queue held by
// value.
func (q *Queue) Init(initialSize int64) {
	q.content = ringBuffer{buffer: make([]interface{}, initialSize)}
}

func (q *Queue) Push(item interface{}) {
	q.lock.Lock()
	c := &q.content
	mod := int32(len(c.buffer))
	c.tail = (c.tail + 1) % mod
	if c.tail == c.head {
		var fillFactor int32 = 2
		// we need to resize

		newLen := mod * fillFactor
		newBuff := make([]interface{}, newLen)

		for i := int32(0); i < mod; i++ {
			buffIndex := (c.tail + i) % mod
			newBuff[i] = c.buffer[buffIndex]
		}
		// set the new buffer and reset head and tail
		newContent := ringBuffer{
			buffer: newBuff,
			head:   0,
			tail:   mod,
		}
		q.content = newContent
	}
	atomic.AddInt64(&q.len, 1)
	q.content.buffer[q.content.tail] = item
	q.lock.Unlock()
}

func (q *Queue) Length() int64 {
	return atomic.LoadInt64(&q.len)
}

func (q *Queue) Empty() bool {
	return q.Length() == 0
}

// single consumer
func (q *Queue) Pop() (interface{}, bool) {
	if q.Empty() {
		return nil, false
	}
	// as we are a single consumer, no other thread can have poped the items there are guaranteed to be items now

	q.lock.Lock()
	c := &q.content
	c.head = (c.head + 1) % int32(len(c.buffer))
	res := c.buffer[c.head]
	c.buffer[c.head] = nil
	atomic.AddInt64(&q.len, -1)
	q.lock.Unlock()
	return res, true
}

func (q *Queue) PopMany(count int64) ([]interface{}, bool) {
	if q.Empty() {
		return nil, false
	}

	q.lock.Lock()
	c := &q.content

	if count >= q.len {
		count = q.len
	}
	atomic.AddInt64(&q.len, -count)

	buffer := make([]interface{}, count)
	mod := int32(len(c.buffer))
	for i := int32(0); i < int32(count); i++ {
		pos := (c.head + 1 + i) % mod
		buffer[i] = c.buffer[pos]
		c.buffer[pos] = nil
	}
	c.head = (c.head + int32(count)) % mod

	q.lock.Unlock()
	return buffer, true
}
