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

// recordKinds words the rule of a format whose files hold either queries
// or documents, told apart by field: the first record decides.
type recordKinds struct {
	field   string // present in a query record only
	queries string // what the query records are called
	docFile string // what a file of documents is called
	doc     string // what a document record is called
}

var (
	boolqKinds = recordKinds{field: "question", queries: "questions", docFile: "passage file", doc: "passage"}
	questKinds = recordKinds{field: "query", queries: "queries", docFile: "documents file", doc: "document"}
)

// check sets res.Kind ("queries" or "documents") from the first record and
// refuses a later record of the other kind.
func (k recordKinds) check(in *input, res *Result, isQuery bool) error {
	kind := "queries"
	if !isQuery {
		kind = "documents"
	}
	switch {
	case res.Kind == "":
		res.Kind = kind
	case res.Kind == kind:
	case res.Kind == "queries":
		return lineErr(in.name, in.line, k.field, "missing (the earlier records of this file are %s)", k.queries)
	default:
		return lineErr(in.name, in.line, k.field, "unexpected in a %s (the first record was a %s)", k.docFile, k.doc)
	}
	return nil
}
