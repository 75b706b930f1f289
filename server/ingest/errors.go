package ingest

import (
	"errors"
	"fmt"

	"boolpool/server/trecfmt"
)

// LineError names the file, line (1-based; 0 = the file as a whole), field
// and reason of a bad input.
type LineError struct {
	File   string
	Line   int
	Field  string
	Reason string
}

func (e *LineError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", loc, e.Reason)
	}
	return fmt.Sprintf("%s: field %s: %s", loc, e.Field, e.Reason)
}

func lineErr(file string, line int, field, format string, args ...any) error {
	return &LineError{File: file, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// asLineError converts a trecfmt error into a LineError (same shape); a
// LineError wrapped by a parser (a bad line found while reading) is
// returned as it is.
func asLineError(err error) error {
	var le *LineError
	if errors.As(err, &le) {
		return le
	}
	var te *trecfmt.LineError
	if errors.As(err, &te) {
		return &LineError{File: te.File, Line: te.Line, Field: te.Field, Reason: te.Reason}
	}
	return err
}
