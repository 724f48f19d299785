// Package workers is the live dispatcher every actor of a daemon runs on: a pool of
// goroutines it keeps, which run the mailboxes protoactor schedules (Pool implements
// actor.Dispatcher), with a queue the running workers take from when their turn ends,
// a watchdog for workers stuck in a turn, and Blocking for a turn that waits for the
// disk. Replay and the deterministic tests use protoactor's synchronized dispatcher
// instead.
//
// It imports only the standard library (its benchmark, protoactor), so it knows
// nothing of actors, edged's packages, or what the mailboxes run.
package workers
