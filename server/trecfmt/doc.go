// Package trecfmt reads and writes the TREC evaluation file formats: qrels
// (graded judgments), runs (ranked results) and topics (the classic SGML
// form and a simple tab-separated form).
//
// Readers stream: they hold one line at a time, so files far larger than
// memory can be processed. Every error caused by the input is a *LineError
// naming the file, the line (1-based), the field and the reason, so a user
// can fix the file without guessing.
//
// The accepted syntax follows trec_eval where trec_eval is lenient (fields
// split on any run of white space; blank lines and lines starting with '#'
// skipped; run fields after the sixth ignored) and is strict where
// trec_eval silently guesses (atol/atof of a malformed number is an error
// here, not 0).
//
// Writers refuse an id with white space; callers write ids through the
// id rule of ids.go (EncodeID, and a project's IDMap): ids without white
// space unchanged, others escaped (space → "_", "_" → "%5F", "%" → "%25",
// other white space and control characters → "%XX"), a collision with an
// id written unchanged resolved with a "~N" suffix. WriteIDMap writes the
// ids that changed.
package trecfmt

import (
	"fmt"
	"strconv"
	"strings"

	"boolpool/server/apperr"
)

// LineError reports malformed input with its exact position.
type LineError struct {
	File   string // file name as given by the caller
	Line   int    // 1-based line number
	Field  string // name of the offending field, or "" for the whole line
	Reason string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d: field %s: %s", e.File, e.Line, e.Field, e.Reason)
}

// skipLine reports whether a line carries no record: blank or a comment.
func skipLine(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#'
}

// maxQuote bounds the text of a file quoted in an error.
const maxQuote = 200

// quote is %q of s clipped to maxQuote bytes.
func quote(s string) string { return strconv.Quote(apperr.Clip(s, maxQuote)) }
