package actor

import (
	"sync/atomic"
	"unsafe"
)

/*
ensure the generated pid file contains the p *ActorProcess
TODO: make some sed command to inject this somehow

type PID struct {
	Address   string `protobuf:"bytes,1,opt,name=Address,proto3" json:"Address,omitempty"`
	Id        string `protobuf:"bytes,2,opt,name=Id,proto3" json:"Id,omitempty"`
	RequestId uint32 `protobuf:"varint,3,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`

	//manually added
	p *ActorProcess
}
*/

// ref is the process behind pid. A PID caches its actor's process, and only an
// actor's: caching any Process took a Process interface of its own on the heap, 16
// bytes for every actor ever sent to. Futures and the rest are looked up each time,
// as a PID's first send always was.
//
//goland:noinspection GoReceiverNames
func (pid *PID) ref(actorSystem *ActorSystem) Process {
	if l := (*ActorProcess)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&pid.p)))); l != nil {
		if atomic.LoadInt32(&l.dead) != 1 {
			return l
		}
		atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&pid.p)), nil)
	}

	ref, exists := actorSystem.ProcessRegistry.Get(pid)
	if l, ok := ref.(*ActorProcess); exists && ok {
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
