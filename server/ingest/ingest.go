// Package ingest imports corpora, queries, judgments and runs into a
// project: QUEST jsonl (queries and documents.jsonl), BEIR, TREC topics,
// qrels and runs, BoolQuestions, NevIR and CSV. Every file streams line by
// line and is written in one transaction: a bad line aborts the whole file
// with a *LineError naming file, line, field and reason, and nothing of that
// file is kept. Rows are upserted by external id, so re-importing a file is
// idempotent.
package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

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
}

// Result reports one imported file.
type Result struct {
	File   string
	Format string
	Kind   string // documents, queries, qrels, run, ...
	Counts store.ImportCounts
	Notes  []string // non-fatal remarks (e.g. a template whose marks do not match)
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
	return results, nil
}

func importFile(ctx context.Context, st *store.Store, projectID int64, format, path string, opt Options) (Result, error) {
	in, err := openInput(path, opt)
	if err != nil {
		return Result{}, err
	}
	defer in.Close()
	res := Result{File: path, Format: format}
	counts, err := st.Import(ctx, projectID, func(im *store.Importer) error {
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
	return res, nil
}

// input is one opened file: transparently gunzipped, read line by line.
type input struct {
	name  string
	f     *os.File
	cr    *countingReader
	r     *bufio.Reader
	gz    *gzip.Reader
	line  int
	total int64
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
	in := &input{name: path, f: f, total: st.Size(), prog: opt.Progress}
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
	in.r = bufio.NewReaderSize(&textReader{name: path, r: bufio.NewReaderSize(r, 1<<20)}, 64<<10)
	return in, nil
}

// textReader passes a file through line by line and stops at the first
// line PostgreSQL text could not hold (invalid UTF-8, a NUL byte) with a
// *LineError naming it, so every format's parser gets the check before
// any of its values reach the database.
type textReader struct {
	name string
	r    *bufio.Reader
	buf  []byte // the rest of the current line
	line int
	err  error
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		line, err := t.r.ReadBytes('\n')
		if len(line) > 0 {
			t.line++
			switch {
			case !utf8.Valid(line):
				return 0, &LineError{File: t.name, Line: t.line, Reason: "not valid UTF-8 text (convert the file to UTF-8)"}
			case bytes.IndexByte(line, 0) >= 0:
				return 0, &LineError{File: t.name, Line: t.line, Reason: "contains a NUL character, which cannot be stored"}
			}
		}
		t.buf, t.err = line, err
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

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sortedKeys is a helper for deterministic messages.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func baseName(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".gz", ".txt", ".tsv", ".trec", ".run", ".jsonl", ".json", ".csv"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
