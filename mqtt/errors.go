package mqtt

import "fmt"

// DecodeError says why a payload could not be turned into a Reading. Its
// message is a plain sentence naming the field and the reason.
type DecodeError struct {
	// Field is the configured path of the field at fault ("" when the
	// payload as a whole is at fault, the key's topic segment "topic").
	Field  string
	Reason string
}

func (e *DecodeError) Error() string { return e.Reason }

func decodeErr(format string, args ...any) *DecodeError {
	return &DecodeError{Reason: fmt.Sprintf(format, args...)}
}

func fieldErr(kind, field, format string, args ...any) *DecodeError {
	return &DecodeError{Field: field, Reason: fmt.Sprintf("%s field %q: ", kind, field) + fmt.Sprintf(format, args...)}
}
