// Package ingest imports corpora, queries, judgments and runs into a
// project: QUEST jsonl (queries and documents.jsonl), BEIR, TREC topics,
// qrels and runs, BoolQuestions, NevIR and CSV. Every JSON format reads
// JSON lines or one JSON array (compact or pretty-printed). Every file
// streams record by record and is written in one transaction: a bad record
// aborts the whole file with a *LineError naming file, line, field and
// reason, and nothing of that file is kept. Rows are upserted by external id, so re-importing a file is
// idempotent; a row the file gives again is written once, the last record
// winning, and the repeats are reported (Result.DuplicateLines). A file is
// bounded after decompression (Options.MaxBytes), a line or record in bytes
// (Options.MaxLine) and in elements (MaxRecordElements), a query's text by
// decompose.CheckQuery.
package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"boolpool/server/apperr"
	"boolpool/server/decompose"
	"boolpool/server/store"
)

// Formats lists the accepted --format names.
func Formats() []string {
	return []string{"quest", "beir", "trec-topics", "trec-qrels", "trec-run", "boolq", "nevir", "csv"}
}

// Options tune an import.
type Options struct {
	// RunName names an imported TREC run (default: the file's base name).
	RunName string
	// Progress, when set, is called after each line with bytes read so far.
	Progress func(file string, read, total int64)
	Log      *slog.Logger
	// MaxLine caps one line, and one record spanning lines (a CSV record
	// with quoted newlines, an element of a JSON array, a TREC topic), in
	// bytes; 0 = DefaultMaxLine. A longer one fails the file with a
	// *LineError as soon as the limit is passed, before it is read whole.
	MaxLine int64
	// NoDecompose turns off the decomposer run after importing queries of
	// a format without Boolean structure (see decomposes).
	NoDecompose bool
	// MaxBytes caps what one file holds, counted after decompression;
	// 0 = DefaultMaxImportBytes. A longer file fails with a *LineError
	// naming the file and the line being read once the limit is passed.
	MaxBytes int64
}

// DefaultMaxImportBytes is the default of Options.MaxBytes: 8 GiB.
const DefaultMaxImportBytes = 8 << 30

// MaxRecordElements bounds the elements of one record: the passages of a
// BoolQuestions record (all its passage fields together), the titles of a
// QUEST query's "docs", the fields of a JSON object or of a CSV/TSV record. A record with more
// is refused as soon as the bound is passed (issue 29: one 12 MB record
// held 3 M passages).
const MaxRecordElements = 100000

func (o Options) maxBytes() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxImportBytes
	}
	return o.MaxBytes
}

// DefaultMaxLine is the default of Options.MaxLine: 16 MiB.
const DefaultMaxLine = 16 << 20

func (o Options) maxLine() int64 {
	if o.MaxLine <= 0 {
		return DefaultMaxLine
	}
	return o.MaxLine
}

// Result reports one imported file.
type Result struct {
	File   string
	Format string
	Kind   string // documents, queries, qrels, run, ...
	Counts store.ImportCounts
	Notes  []string // non-fatal remarks (e.g. a template whose marks do not match)
	// Ignored counts, per field present in the file and not imported, the
	// records that had it (a field of a nested passage is named like
	// "positive_ctxs[].score"). Nil when nothing was ignored.
	Ignored map[string]int
	// Decomposed is how many of the project's queries got an expression
	// from the decomposer after this import (set on the last file's
	// result; see Options.NoDecompose).
	Decomposed int
	// DuplicateLines are the first lines (at most
	// store.MaxDuplicateLines) of the Counts.Duplicates records that gave
	// a row the file had given before; the last one won.
	DuplicateLines []int
}

// noteDuplicates adds the note on repeated records (and sets
// DuplicateLines).
func (r *Result) noteDuplicates(lines []int) {
	r.DuplicateLines = lines
	n := r.Counts.Duplicates
	if n == 0 {
		return
	}
	var at []string
	for _, l := range lines {
		at = append(at, strconv.Itoa(l))
	}
	note := fmt.Sprintf("%d record%s repeated a document, query or qrel given earlier in this file: each row is written once, the last record wins", n, plural(n, "", "s"))
	if len(at) > 0 {
		more := ""
		if n > len(at) {
			more = ", …"
		}
		note += fmt.Sprintf(" (line%s %s%s)", plural(len(at), "", "s"), strings.Join(at, ", "), more)
	}
	r.Notes = append(r.Notes, note)
}

// checkQueryText refuses a query text longer than the decomposer reads
// (decompose.CheckQuery), naming the file, line and field.
func checkQueryText(in *input, line int, field, text string) error {
	if reason := decompose.CheckQuery(text); reason != "" {
		return lineErr(in.name, line, field, "%s", reason)
	}
	return nil
}

// Files imports each file (or, for BEIR, directory) in its own transaction.
// It stops at the first failing file; files before it stay imported.
func Files(ctx context.Context, st *store.Store, projectID int64, format string, paths []string, opt Options) ([]Result, error) {
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var results []Result
	for _, path := range paths {
		if format == "beir" {
			rs, err := importBEIR(ctx, st, projectID, path, opt)
			results = append(results, rs...)
			if err != nil {
				return results, err
			}
			continue
		}
		r, err := importFile(ctx, st, projectID, format, path, opt)
		if err != nil {
			return results, err
		}
		results = append(results, r)
	}
	if err := decomposeImported(ctx, st, projectID, format, results, opt); err != nil {
		return results, err
	}
	return results, nil
}

// decomposes reports whether a format's queries carry no Boolean
// structure of their own (QUEST's marks and templates do), so that the
// Boolean retrieval methods need the decomposer's expressions.
func decomposes(format string) bool {
	switch format {
	case "nevir", "boolq", "beir", "trec-topics", "csv":
		return true
	}
	return false
}

// decomposeImported stores the decomposer's expression for every query of
// the project that has none, after an import of such a format brought
// queries, and says so in the last result's notes.
func decomposeImported(ctx context.Context, st *store.Store, projectID int64, format string, results []Result, opt Options) error {
	if opt.NoDecompose || !decomposes(format) || len(results) == 0 {
		return nil
	}
	queries := 0
	for _, r := range results {
		queries += r.Counts.Queries
	}
	if queries == 0 {
		return nil
	}
	sum, err := decompose.StoreProjectExpressions(ctx, st, projectID, decompose.StoreOptions{OnlyMissing: true})
	if err != nil {
		return fmt.Errorf("ingest: decompose the imported queries: %w", err)
	}
	last := &results[len(results)-1]
	last.Decomposed = sum.Stored
	note := fmt.Sprintf("decomposer: %d quer%s got an expression (%d already had one", sum.Stored, plural(sum.Stored, "y", "ies"), sum.Skipped)
	if n := len(sum.Failed); n > 0 {
		note += fmt.Sprintf(", %d got none, e.g. %q: %s", n, apperr.Clip(sum.Failed[0].Text, 80), sum.Failed[0].Reason)
	}
	note += "); --no-decompose turns this off"
	if sum.Stored > 0 {
		note += fmt.Sprintf("; %d of the %d below confidence %.2f (check them first: the query editor lists the least confident first)",
			sum.LowConfidence, sum.Stored, sum.ConfidenceThreshold)
	}
	last.Notes = append([]string{note}, last.Notes...)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func importFile(ctx context.Context, st *store.Store, projectID int64, format, path string, opt Options) (Result, error) {
	in, err := openInput(path, opt)
	if err != nil {
		return Result{}, err
	}
	defer in.Close()
	res := Result{File: path, Format: format}
	counts, dupLines, err := st.ImportReport(ctx, projectID, func(im *store.Importer) error {
		switch format {
		case "quest":
			return importQuest(ctx, im, in, &res)
		case "trec-topics":
			return importTRECTopics(ctx, im, in, &res)
		case "trec-qrels":
			return importTRECQrels(ctx, im, in, &res)
		case "trec-run":
			return importTRECRun(ctx, im, in, &res, opt.RunName)
		case "boolq":
			return importBoolQ(ctx, im, in, &res)
		case "nevir":
			return importNevIR(ctx, im, in, &res)
		case "csv":
			return importCSV(ctx, im, in, &res)
		default:
			return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
		}
	})
	res.Counts = counts
	if err != nil {
		return res, asLineError(err)
	}
	res.noteDuplicates(dupLines)
	return res, nil
}

// input is one opened file: transparently gunzipped, read line by line.
type input struct {
	name  string
	f     *os.File
	cr    *countingReader
	tr    *textReader
	r     *bufio.Reader
	gz    *gzip.Reader
	line  int
	total int64
	max   int64 // longest line or record
	prog  func(file string, read, total int64)
}

func openInput(path string, opt Options) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, &LineError{File: path, Reason: "is a directory (only the beir format takes a directory)"}
	}
	in := &input{name: path, f: f, total: st.Size(), max: opt.maxLine(), prog: opt.Progress}
	in.cr = &countingReader{r: f}
	var r io.Reader = in.cr
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(in.cr)
		if err != nil {
			f.Close()
			return nil, &LineError{File: path, Reason: "not a valid gzip file: " + err.Error()}
		}
		in.gz = gz
		r = gz
	}
	r = &sizeLimit{r: r, in: in, max: opt.maxBytes()}
	in.tr = &textReader{name: path, r: bufio.NewReaderSize(r, 1<<20), max: in.max}
	in.r = bufio.NewReaderSize(in.tr, 64<<10)
	return in, nil
}

// records returns a reader of in for a parser whose records may span
// lines (CSV, a JSON array, TREC topics): it fails once one record grows
// past in.max bytes. Call next after each record.
func (in *input) records(what string) *recordReader {
	return &recordReader{in: in, what: what}
}

// recordReader hands a record parser at most recordChunk bytes per Read,
// so that what the parser reads ahead of the record it is in is at most
// one chunk, and counts the bytes since the last record.
type recordReader struct {
	in   *input
	what string
	n    int64
	// sep, when set, is the field separator of a CSV or TSV file: the
	// separators outside double quotes since the last record are counted,
	// and a record with more than MaxRecordElements fields fails before
	// the CSV reader builds them (one string each).
	sep    byte
	seps   int
	quoted bool
}

const recordChunk = 64 << 10

func (r *recordReader) Read(p []byte) (int, error) {
	if r.n > r.in.max+recordChunk {
		return 0, &LineError{File: r.in.name, Line: r.in.tr.line,
			Reason: fmt.Sprintf("%s longer than %d bytes (the -max-line limit)", r.what, r.in.max)}
	}
	if len(p) > recordChunk {
		p = p[:recordChunk]
	}
	n, err := r.in.r.Read(p)
	r.n += int64(n)
	if r.sep != 0 {
		for _, c := range p[:n] {
			switch {
			case c == '"':
				r.quoted = !r.quoted
			case c == r.sep && !r.quoted:
				r.seps++
			}
		}
		// What the parser reads ahead of its record is at most one chunk.
		if r.seps > MaxRecordElements+recordChunk {
			return 0, &LineError{File: r.in.name, Line: r.in.tr.line,
				Reason: fmt.Sprintf("%s with more than %d fields (the bound on elements of one record)", r.what, MaxRecordElements)}
		}
	}
	return n, err
}

// next starts counting a new record.
func (r *recordReader) next() { r.n, r.seps = 0, 0 }

// csvRecord reads cr's next record (cr reads from r; line is the record's
// number, for errors) and starts counting the one after it: io.EOF at the
// end, a *LineError from r as it is, a parse error on the line it names.
func (r *recordReader) csvRecord(cr *csv.Reader, line int) ([]string, error) {
	rec, err := cr.Read()
	r.next()
	if err == nil || errors.Is(err, io.EOF) {
		return rec, err
	}
	if le := (*LineError)(nil); errors.As(err, &le) {
		return nil, le
	}
	if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
		return nil, lineErr(r.in.name, pe.Line, "", "%v", pe.Err)
	}
	return nil, lineErr(r.in.name, line, "", "%v", err)
}

// textReader passes a file through and stops at the first line
// PostgreSQL text could not hold (invalid UTF-8, a NUL byte) or longer
// than max bytes, with a *LineError naming it, so every format's parser
// gets the check before any of its values reach the database.
//
// With max > 0 it hands on whole lines only, so that a line parser never
// sees the start of a line that is then refused; an over-long line is
// refused once max bytes of it are read: memory stays bounded by max plus
// the read buffer, whatever the input. With max = 0 (a JSON array, whose
// reader bounds each element instead) it hands on fragments of at most its
// buffer's size, so that a file that is one long line streams through in
// bounded memory.
type textReader struct {
	name    string
	r       *bufio.Reader
	max     int64  // longest line; 0 = no line limit, fragments
	acc     []byte // accumulates a line longer than r's buffer
	line    int    // lines started so far (the current line, 1-based)
	inLine  bool   // in fragment mode: a line has started and not ended
	carry   []byte // in fragment mode: a rune cut at a fragment's end
	scratch []byte
	buf     []byte // the rest of the current line or fragment
	err     error
}

// readLine returns the next line with its line ending. The slice is valid
// until the next call.
func (t *textReader) readLine() ([]byte, error) {
	t.acc = t.acc[:0]
	for {
		frag, err := t.r.ReadSlice('\n')
		n := int64(len(t.acc) + len(frag))
		if errors.Is(err, bufio.ErrBufferFull) {
			if n > t.max {
				return nil, t.tooLong()
			}
			t.acc = append(t.acc, frag...)
			continue
		}
		if n-int64(len(frag)-len(bytes.TrimRight(frag, "\r\n"))) > t.max {
			return nil, t.tooLong()
		}
		if len(t.acc) == 0 {
			return frag, err
		}
		t.acc = append(t.acc, frag...)
		return t.acc, err
	}
}

func (t *textReader) tooLong() error {
	return &LineError{File: t.name, Line: t.line + 1,
		Reason: fmt.Sprintf("line %d longer than %d bytes (the -max-line limit)", t.line+1, t.max)}
}

// check refuses text PostgreSQL cannot store.
func (t *textReader) check(text []byte) error {
	switch {
	case !utf8.Valid(text):
		return &LineError{File: t.name, Line: t.line, Reason: "not valid UTF-8 text (convert the file to UTF-8)"}
	case bytes.IndexByte(text, 0) >= 0:
		return &LineError{File: t.name, Line: t.line, Reason: "contains a NUL character, which cannot be stored"}
	}
	return nil
}

// fillLine reads the next whole line into t.buf, or sets t.err.
func (t *textReader) fillLine() {
	line, err := t.readLine()
	if le := (*LineError)(nil); errors.As(err, &le) {
		t.err = err
		return
	}
	if len(line) > 0 {
		t.line++
		if cerr := t.check(line); cerr != nil {
			t.err = cerr
			return
		}
	}
	t.buf, t.err = line, err
}

// fillFragment reads the next fragment of the input into t.buf, or sets
// t.err.
func (t *textReader) fillFragment() {
	frag, err := t.r.ReadSlice('\n')
	cont := errors.Is(err, bufio.ErrBufferFull) // the line goes on
	if cont {
		err = nil
	}
	if len(frag) == 0 && len(t.carry) == 0 {
		t.err = err
		return
	}
	if len(frag) > 0 && !t.inLine {
		t.line++
		t.inLine = true
	}
	data := frag
	if len(t.carry) > 0 {
		t.scratch = append(append(t.scratch[:0], t.carry...), frag...)
		data = t.scratch
		t.carry = t.carry[:0]
	}
	if cont {
		// A rune cut by the buffer's end is checked with the next fragment.
		cut := len(data)
		for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
			if utf8.RuneStart(data[i]) {
				if !utf8.FullRune(data[i:]) {
					cut = i
				}
				break
			}
		}
		t.carry = append(t.carry[:0], data[cut:]...)
		data = data[:cut]
	}
	if cerr := t.check(data); cerr != nil {
		t.err = cerr
		return
	}
	if len(frag) > 0 && frag[len(frag)-1] == '\n' {
		t.inLine = false
	}
	t.buf, t.err = data, err
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		// The errors stick: a parser that reads on must not skip the
		// bad line.
		if t.err != nil {
			return 0, t.err
		}
		if t.max > 0 {
			t.fillLine()
		} else {
			t.fillFragment()
		}
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}

func (in *input) Close() {
	if in.gz != nil {
		in.gz.Close()
	}
	in.f.Close()
}

// next returns the next line without its line ending; io.EOF at the end.
func (in *input) next() ([]byte, error) {
	line, err := in.r.ReadBytes('\n')
	if le := (*LineError)(nil); errors.As(err, &le) {
		return nil, le // the text reader's: a bad or over-long line
	}
	if len(line) == 0 && err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, &LineError{File: in.name, Line: in.line + 1, Reason: "read: " + err.Error()}
	}
	in.line++
	if in.prog != nil {
		in.prog(in.name, in.cr.n, in.total)
	}
	line = bytes.TrimRight(line, "\r\n")
	if in.line == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	}
	// PostgreSQL text cannot hold NUL; say so here, with the line, rather
	// than fail later in the database without one.
	if bytes.IndexByte(line, 0) >= 0 || bytes.Contains(line, []byte(`\u0000`)) {
		return nil, &LineError{File: in.name, Line: in.line, Reason: "contains a NUL character (\\u0000), which cannot be stored"}
	}
	return line, nil
}

// eachLine calls fn with each non-empty line of in, in order, until the
// end of the input (nil) or the first error of reading or of fn.
func (in *input) eachLine(fn func(line []byte) error) error {
	for {
		line, err := in.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(line) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// sizeLimit fails a file once more than max bytes of it (decompressed)
// are read, naming the line being read.
type sizeLimit struct {
	r   io.Reader
	in  *input
	n   int64
	max int64
}

func (s *sizeLimit) Read(p []byte) (int, error) {
	if s.n > s.max {
		return 0, s.err()
	}
	if int64(len(p)) > s.max+1-s.n {
		p = p[:s.max+1-s.n]
	}
	k, err := s.r.Read(p)
	s.n += int64(k)
	if s.n > s.max {
		return 0, s.err()
	}
	return k, err
}

func (s *sizeLimit) err() error {
	line := 1
	if s.in.tr != nil {
		line = s.in.tr.line + 1
	}
	return &LineError{File: s.in.name, Line: line,
		Reason: fmt.Sprintf("the file holds more than %d bytes (decompressed; the -max-import-bytes limit)", s.max)}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func baseName(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".gz", ".txt", ".tsv", ".trec", ".run", ".jsonl", ".json", ".csv"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
