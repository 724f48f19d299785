package actor

import (
	"sync/atomic"
	"unsafe"
)

// ref caches the local actor a PID names, not a boxed Process: a send then reads the
// PID, the actor process and its mailbox, where a box is one more dependent cache
// miss per send and an allocation per actor. Other processes (futures, the dead letter
// process, remote ones) are looked up at each send; a future takes one reply anyway.
//
//goland:noinspection GoReceiverNames
func (pid *PID) ref(actorSystem *ActorSystem) Process {
	l := (*ActorProcess)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&pid.p))))
	if l != nil {
		if atomic.LoadInt32(&l.dead) == 0 {
			return l
		}
		atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&pid.p)), nil)
	}

	ref, exists := actorSystem.ProcessRegistry.Get(pid)
	if l, ok := ref.(*ActorProcess); ok && exists {
		atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&pid.p)), unsafe.Pointer(l))
	}

	return ref
}

// sendUserMessage sends a messages asynchronously to the PID.
//
//goland:noinspection GoReceiverNames
func (pid *PID) sendUserMessage(actorSystem *ActorSystem, message interface{}) {
	pid.ref(actorSystem).SendUserMessage(pid, message)
}

//goland:noinspection GoReceiverNames.
func (pid *PID) sendSystemMessage(actorSystem *ActorSystem, message interface{}) {
	pid.ref(actorSystem).SendSystemMessage(pid, message)
}

//goland:noinspection GoReceiverNames.
func (pid *PID) Equal(other *PID) bool {
	if pid != nil && other == nil {
		return false
	}

	return pid.Id == other.Id && pid.Address == other.Address && pid.RequestId == other.RequestId
}

// NewPID returns a new instance of the PID struct.
func NewPID(address, id string) *PID {
	return &PID{
		Address: address,
		Id:      id,
	}
}
