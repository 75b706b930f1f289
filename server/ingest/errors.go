package ingest

import (
	"errors"
	"fmt"
	"strconv"

	"boolpool/server/apperr"
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

// Limits of user text quoted in an error: the answer to a bad upload
// must not grow with it.
const (
	maxQuote  = 200  // one quoted value
	maxReason = 1000 // a whole reason
)

// quote is %q of s clipped to maxQuote bytes, for error messages.
func quote(s string) string { return strconv.Quote(apperr.Clip(s, maxQuote)) }

// asLineError converts a trecfmt error into a LineError (same shape); a
// LineError wrapped by a parser (a bad line found while reading) is
// returned as it is.
func asLineError(err error) error {
	var le *LineError
	if errors.As(err, &le) {
		return le.clipped()
	}
	var te *trecfmt.LineError
	if errors.As(err, &te) {
		return (&LineError{File: te.File, Line: te.Line, Field: te.Field, Reason: te.Reason}).clipped()
	}
	return err
}

// clipped is e with field and reason cut to bounded lengths: both can
// carry text of the file.
func (e *LineError) clipped() *LineError {
	return &LineError{File: e.File, Line: e.Line, Field: apperr.Clip(e.Field, maxQuote), Reason: apperr.Clip(e.Reason, maxReason)}
}
