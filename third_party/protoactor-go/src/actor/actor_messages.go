package actor

import "strconv"

// The messages actor.proto declared, as plain Go types. Without remoting nothing
// serialises them, and as generated protobuf messages each carried a message state,
// a size cache and unknown fields: 48 bytes more for every PID, and every actor has
// one. The JSON names are the generated ones.

// PID names a process: Id within the actor system at Address.
type PID struct {
	Address   string `json:"Address,omitempty"`
	Id        string `json:"Id,omitempty"`
	RequestId uint32 `json:"request_id,omitempty"`

	p *ActorProcess // the local actor this PID was last found to be; see ref
}

func (x *PID) GetAddress() string {
	if x != nil {
		return x.Address
	}
	return ""
}

func (x *PID) GetId() string {
	if x != nil {
		return x.Id
	}
	return ""
}

func (x *PID) GetRequestId() uint32 {
	if x != nil {
		return x.RequestId
	}
	return 0
}

// String is the PID in protobuf's text format, as the generated String was.
func (x *PID) String() string {
	if x == nil {
		return "<nil>"
	}
	var b []byte
	field := func(name string) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(append(b, name...), ':')
	}
	if x.Address != "" {
		field("Address")
		b = strconv.AppendQuote(b, x.Address)
	}
	if x.Id != "" {
		field("Id")
		b = strconv.AppendQuote(b, x.Id)
	}
	if x.RequestId != 0 {
		field("request_id")
		b = strconv.AppendUint(b, uint64(x.RequestId), 10)
	}
	return string(b)
}

// PoisonPill stops an actor once it has processed the messages sent before it.
type PoisonPill struct{}

// DeadLetterResponse answers a request sent to a process that does not exist.
type DeadLetterResponse struct {
	Target *PID `json:"Target,omitempty"`
}

func (x *DeadLetterResponse) GetTarget() *PID {
	if x != nil {
		return x.Target
	}
	return nil
}

// Watch asks an actor to tell Watcher when it terminates.
type Watch struct {
	Watcher *PID `json:"Watcher,omitempty"`
}

func (x *Watch) GetWatcher() *PID {
	if x != nil {
		return x.Watcher
	}
	return nil
}

// Unwatch takes back a Watch.
type Unwatch struct {
	Watcher *PID `json:"Watcher,omitempty"`
}

func (x *Unwatch) GetWatcher() *PID {
	if x != nil {
		return x.Watcher
	}
	return nil
}

// Terminated tells a watcher that Who has terminated, and why.
type Terminated struct {
	Who *PID             `json:"who,omitempty"`
	Why TerminatedReason `json:"Why,omitempty"`
}

func (x *Terminated) GetWho() *PID {
	if x != nil {
		return x.Who
	}
	return nil
}

func (x *Terminated) GetWhy() TerminatedReason {
	if x != nil {
		return x.Why
	}
	return TerminatedReason_Stopped
}

// TerminatedReason is why a watched process terminated.
type TerminatedReason int32

const (
	TerminatedReason_Stopped           TerminatedReason = 0
	TerminatedReason_AddressTerminated TerminatedReason = 1
	TerminatedReason_NotFound          TerminatedReason = 2
)

// Enum value maps for TerminatedReason.
var (
	TerminatedReason_name = map[int32]string{
		0: "Stopped",
		1: "AddressTerminated",
		2: "NotFound",
	}
	TerminatedReason_value = map[string]int32{
		"Stopped":           0,
		"AddressTerminated": 1,
		"NotFound":          2,
	}
)

func (x TerminatedReason) Enum() *TerminatedReason {
	return &x
}

func (x TerminatedReason) String() string {
	if name, ok := TerminatedReason_name[int32(x)]; ok {
		return name
	}
	return strconv.Itoa(int(x))
}

// Stop stops an actor at once.
type Stop struct{}

// Touch asks an actor for a Touched reply.
type Touch struct{}

// Touched answers a Touch.
type Touched struct {
	Who *PID `json:"who,omitempty"`
}

func (x *Touched) GetWho() *PID {
	if x != nil {
		return x.Who
	}
	return nil
}
