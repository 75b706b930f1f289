package trecfmt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
)

// RunLine is one result line: "qid Q0 docid rank score tag".
type RunLine struct {
	QueryID string
	Iter    string // conventionally "Q0"; ignored by evaluation
	DocID   string
	Rank    int // as written; trec_eval ignores it and ranks by Score
	Score   float64
	Tag     string
}

// RunReader streams run lines: Read returns the next result line, or
// io.EOF after the last one.
type RunReader struct{ lineReader[RunLine] }

// NewRunReader returns a reader of the run in r; file names r in errors.
func NewRunReader(r io.Reader, file string) *RunReader {
	return &RunReader{newLineReader(r, file, skipLine, parseRunLine)}
}

func parseRunLine(text, file string, line int) (RunLine, error) {
	f := firstFields(text, 6)
	// trec_eval ignores anything after the tag, so do we.
	if len(f) < 6 {
		return RunLine{}, &LineError{File: file, Line: line,
			Reason: fmt.Sprintf("want 6 fields (qid Q0 docid rank score tag), got %d", len(f))}
	}
	rank, err := strconv.Atoi(f[3])
	if err != nil {
		return RunLine{}, &LineError{File: file, Line: line, Field: "rank",
			Reason: fmt.Sprintf("%s is not an integer", quote(f[3]))}
	}
	score, err := strconv.ParseFloat(f[4], 64)
	if err != nil || math.IsNaN(score) {
		return RunLine{}, &LineError{File: file, Line: line, Field: "score",
			Reason: fmt.Sprintf("%s is not a number", quote(f[4]))}
	}
	return RunLine{QueryID: f[0], Iter: f[1], DocID: f[2], Rank: rank, Score: score, Tag: f[5]}, nil
}

// ReadRun reads all result lines from r, in file order.
func ReadRun(ctx context.Context, r io.Reader, file string) ([]RunLine, error) {
	return readAll(ctx, NewRunReader(r, file).Read)
}

// RunWriter writes conventional run lines.
type RunWriter struct {
	w *bufio.Writer
}

// NewRunWriter returns a writer to w. Call Flush when done.
func NewRunWriter(w io.Writer) *RunWriter { return &RunWriter{w: bufio.NewWriter(w)} }

// Write writes one line as "qid Q0 docid rank score tag\n". An empty Iter is
// written as "Q0". The score uses the shortest decimal form that reads back
// to the same float64, so writing what was read loses no ranking
// information.
func (rw *RunWriter) Write(l RunLine) error {
	if err := checkTokens(token{"qid", l.QueryID}, token{"docid", l.DocID}, token{"tag", l.Tag}); err != nil {
		return err
	}
	iter, err := iterField(l.Iter, "Q0")
	if err != nil {
		return err
	}
	if math.IsNaN(l.Score) {
		return fmt.Errorf("trecfmt: score of %s/%s is NaN", l.QueryID, l.DocID)
	}
	_, err = fmt.Fprintf(rw.w, "%s %s %s %d %s %s\n", l.QueryID, iter, l.DocID, l.Rank,
		strconv.FormatFloat(l.Score, 'g', -1, 64), l.Tag)
	return err
}

// Flush writes buffered data to the underlying writer.
func (rw *RunWriter) Flush() error { return rw.w.Flush() }

// WriteRun writes all lines in order.
func WriteRun(ctx context.Context, w io.Writer, lines []RunLine) error {
	rw := NewRunWriter(w)
	return writeLines(ctx, "run", lines, rw.Write, rw.Flush)
}
