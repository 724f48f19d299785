package actor

import (
	"sync/atomic"
	"unsafe"
)

/*
ensure the generated pid file contains the p *ActorProcess
TODO: make some sed command to inject this somehow

type PID struct {
	state         protoimpl.MessageState
	sizeCache     protoimpl.SizeCache
	unknownFields protoimpl.UnknownFields

	Address   string `protobuf:"bytes,1,opt,name=Address,proto3" json:"Address,omitempty"`
	Id        string `protobuf:"bytes,2,opt,name=Id,proto3" json:"Id,omitempty"`
	RequestId uint32 `protobuf:"varint,3,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`

	//manually added
	p *ActorProcess
}
*/

// ref caches the local actor a PID names, not a boxed Process: a send then reads the
// PID, the actor process and its mailbox, where the box was one more dependent cache
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
