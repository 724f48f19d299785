package actors

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// supervisor restarts a failed source or window actor and logs which one failed, so
// one bad key or stream never stops the device. A child that fails more than 10
// times a minute is stopped instead of spinning.
type supervisor struct {
	log      *slog.Logger
	restarts actor.SupervisorStrategy
}

func newSupervisor(log *slog.Logger, device string) *supervisor {
	return &supervisor{
		log:      log.With("device", device),
		restarts: actor.NewOneForOneStrategy(10, time.Minute, actor.DefaultDecider),
	}
}

func (s *supervisor) HandleFailure(system *actor.ActorSystem, sup actor.Supervisor, child *actor.PID,
	rs *actor.RestartStatistics, reason any, message any) {
	s.log.Error("actor failed; restarting it from its last committed state",
		"actor", child.Id, "reason", reason, "message", describe(message))
	s.restarts.HandleFailure(system, sup, child, rs, reason, message)
}

// describe names a message without dumping payloads into the log.
func describe(m any) string {
	switch m := m.(type) {
	case *RecordDecoded:
		return "record " + m.Stream + " key " + m.Key
	case *Inbound:
		return "message on " + m.Topic
	case nil:
		return ""
	}
	return "control message"
}
