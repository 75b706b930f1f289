// Package apperr defines the typed errors that domain packages return and
// the HTTP layer maps, in one place, to status codes and JSON problems.
package apperr

import (
	"errors"
	"fmt"
)

// Sentinel errors. Wrap them with %w to add context.
var (
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("conflict")
	ErrUnauthorized = errors.New("not signed in")
	ErrForbidden    = errors.New("forbidden")
	ErrRateLimited  = errors.New("too many requests")
	ErrUnavailable  = errors.New("unavailable")
)

// Invalid is bad input: Field names the request field (or file:line:field)
// and Reason says what is wrong with it.
type Invalid struct {
	Field  string
	Reason string
}

func (e *Invalid) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Reason)
}

// Invalidf builds an *Invalid.
func Invalidf(field, format string, args ...any) error {
	return &Invalid{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Refused is a well-formed request refused because of one field's value in
// the current state (not bad syntax, which is Invalid): Err is the sentinel
// that decides the status (ErrConflict, ErrForbidden…), and the HTTP
// problem names Field.
type Refused struct {
	Field  string
	Reason string
	Err    error
}

func (e *Refused) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap returns the sentinel.
func (e *Refused) Unwrap() error { return e.Err }

// Refusedf builds a *Refused wrapping sentinel.
func Refusedf(sentinel error, field, format string, args ...any) error {
	return &Refused{Field: field, Reason: fmt.Sprintf(format, args...), Err: sentinel}
}
