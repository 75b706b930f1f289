package trecfmt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"boolpool/server/textseg"
)

// Qrel is one judgment line: "qid iter docid rel".
type Qrel struct {
	QueryID string
	Iter    string // ignored by evaluation; conventionally "0"
	DocID   string
	Rel     int // graded relevance; negative values mean "in pool, unjudged" to trec_eval
}

// QrelsReader streams qrels lines: Read returns the next judgment, or
// io.EOF after the last one.
type QrelsReader struct{ lineReader[Qrel] }

// NewQrelsReader returns a reader of the qrels in r; file names r in errors.
func NewQrelsReader(r io.Reader, file string) *QrelsReader {
	return &QrelsReader{newLineReader(r, file, skipLine, parseQrel)}
}

func parseQrel(text, file string, line int) (Qrel, error) {
	if n := textseg.CountWords(text); n != 4 {
		return Qrel{}, &LineError{File: file, Line: line,
			Reason: fmt.Sprintf("want 4 fields (qid iter docid rel), got %d", n)}
	}
	f := strings.Fields(text)
	rel, err := parseRel(f[3])
	if err != nil {
		return Qrel{}, &LineError{File: file, Line: line, Field: "rel", Reason: err.Error()}
	}
	return Qrel{QueryID: f[0], Iter: f[1], DocID: f[2], Rel: rel}, nil
}

// firstFields returns the first n fields of s, split as strings.Fields
// splits, building no more than n.
func firstFields(s string, n int) []string {
	out := make([]string, 0, n)
	start := -1
	for i, r := range s {
		sp := unicode.IsSpace(r)
		switch {
		case !sp && start < 0:
			start = i
		case sp && start >= 0:
			out = append(out, s[start:i])
			start = -1
			if len(out) == n {
				return out
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// parseRel accepts an integer, or a float with an integral value ("2.0"),
// which some converters emit.
func parseRel(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<30 {
		return 0, fmt.Errorf("%s is not an integer relevance grade", quote(s))
	}
	return int(x), nil
}

// ReadQrels reads all judgments from r.
func ReadQrels(ctx context.Context, r io.Reader, file string) ([]Qrel, error) {
	return readAll(ctx, NewQrelsReader(r, file).Read)
}

// readAll collects records from next until io.EOF, checking ctx every
// 4096 records.
func readAll[T any](ctx context.Context, next func() (T, error)) ([]T, error) {
	var out []T
	for {
		if len(out)%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		x, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}

// QrelsWriter writes conventional qrels lines: "qid 0 docid rel\n".
type QrelsWriter struct {
	w *bufio.Writer
}

// NewQrelsWriter returns a writer to w. Call Flush when done.
func NewQrelsWriter(w io.Writer) *QrelsWriter { return &QrelsWriter{w: bufio.NewWriter(w)} }

// Write writes one judgment; an empty Iter is written as "0".
func (q *QrelsWriter) Write(j Qrel) error {
	if err := checkTokens(token{"qid", j.QueryID}, token{"docid", j.DocID}); err != nil {
		return err
	}
	iter, err := iterField(j.Iter, "0")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(q.w, "%s %s %s %d\n", j.QueryID, iter, j.DocID, j.Rel)
	return err
}

// Flush writes buffered data to the underlying writer.
func (q *QrelsWriter) Flush() error { return q.w.Flush() }

// WriteQrels writes all judgments in order.
func WriteQrels(ctx context.Context, w io.Writer, qrels []Qrel) error {
	qw := NewQrelsWriter(w)
	return writeLines(ctx, "qrels", qrels, qw.Write, qw.Flush)
}

// writeLines writes lines in order with write, checking ctx every 4096
// lines, then flushes; what names the file kind in write errors.
func writeLines[T any](ctx context.Context, what string, lines []T, write func(T) error, flush func() error) error {
	for i, l := range lines {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := write(l); err != nil {
			return fmt.Errorf("write %s: %w", what, err)
		}
	}
	return flush()
}

// token is one named field of a line to write.
type token struct{ name, value string }

// checkTokens checks the fields in order with checkToken.
func checkTokens(tokens ...token) error {
	for _, t := range tokens {
		if err := checkToken(t.name, t.value); err != nil {
			return err
		}
	}
	return nil
}

// iterField is the iteration column to write: def when iter is empty,
// otherwise iter, which must be one token.
func iterField(iter, def string) (string, error) {
	if iter == "" {
		return def, nil
	}
	return iter, checkToken("iter", iter)
}

// checkToken rejects values that would not read back as one field.
func checkToken(field, s string) error {
	if s == "" {
		return fmt.Errorf("trecfmt: empty %s", field)
	}
	if strings.IndexFunc(s, isSpace) >= 0 {
		return fmt.Errorf("trecfmt: %s %s contains white space", field, quote(s))
	}
	return nil
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// maxLine bounds one line; real qrels/run lines are short, topics lines
// can be long paragraphs.
const maxLine = 16 << 20

// lineReader reads a file of one record a line: the lines skip says to
// pass over are skipped, the others read by parse.
type lineReader[T any] struct {
	file  string
	sc    *bufio.Scanner
	line  int
	skip  func(text string) bool
	parse func(text, file string, line int) (T, error)
}

func newLineReader[T any](r io.Reader, file string, skip func(string) bool, parse func(string, string, int) (T, error)) lineReader[T] {
	return lineReader[T]{file: file, sc: newScanner(r), skip: skip, parse: parse}
}

// Read returns the next record, or io.EOF after the last one.
func (r *lineReader[T]) Read() (T, error) {
	for r.sc.Scan() {
		r.line++
		text := r.sc.Text()
		if r.skip(text) {
			continue
		}
		return r.parse(text, r.file, r.line)
	}
	var zero T
	if err := r.sc.Err(); err != nil {
		return zero, scanError(err, r.file, r.line+1)
	}
	return zero, io.EOF
}

// Line is the number of the line last read.
func (r *lineReader[T]) Line() int { return r.line }

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return sc
}

func scanError(err error, file string, line int) error {
	if err == bufio.ErrTooLong {
		return &LineError{File: file, Line: line, Reason: fmt.Sprintf("line longer than %d bytes", maxLine)}
	}
	return fmt.Errorf("read %s: %w", file, err)
}
