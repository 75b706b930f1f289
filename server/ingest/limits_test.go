package ingest_test

import (
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"boolpool/server/ingest"
)

// writeGzipLine writes a gzip file holding prefix, then n bytes of c, then
// a newline, without holding the line in memory.
func writeGzipLine(t *testing.T, name, prefix string, c byte, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if _, err := zw.Write([]byte(prefix)); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(string(c), 1<<20))
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := zw.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
	}
	if _, err := zw.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLineCapRefusesLongLineEarly: a gzip holding one 64 MiB line is
// refused by every importer as soon as the line passes the cap (1 MiB
// here), naming file and line, without reading the line whole: the
// importer allocates far less than the line. (Before the cap every
// importer read the whole line first: ReadBytes grew one buffer to the
// line's size.)
func TestLineCapRefusesLongLineEarly(t *testing.T) {
	const lineLen = 64 << 20
	const limit = 1 << 20
	ctx := context.Background()
	st, pid := newProject(t)
	for _, format := range []string{"quest", "csv", "trec-topics", "trec-qrels", "trec-run", "boolq", "nevir"} {
		t.Run(format, func(t *testing.T) {
			prefix := ""
			line := 1
			switch format {
			case "csv":
				prefix = "id,title,text\n"
				line = 2
			case "boolq":
				prefix = "[\n"
				line = 2
			}
			path := writeGzipLine(t, "big.txt.gz", prefix, 'a', lineLen)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ingest.Files(ctx, st, pid, format, []string{path}, ingest.Options{MaxLine: limit})
			runtime.ReadMemStats(&after)
			var le *ingest.LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *ingest.LineError", err, err)
			}
			if le.File != path || le.Line != line || !strings.Contains(le.Reason, "longer than 1048576 bytes") {
				t.Fatalf("error %+v, want %s line %d longer than 1048576 bytes", le, path, line)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
				t.Fatalf("refusing the line allocated %d MiB (the line is %d MiB)", alloc>>20, lineLen>>20)
			}
		})
	}
}

// TestRecordCapSpanningLines: records that span many short lines (a CSV
// field with quoted newlines, a JSON array element, a TREC topic) are
// capped as a whole too.
func TestRecordCapSpanningLines(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	many := strings.Repeat("short line of text\n", 20000) // ~380 KB
	tests := []struct{ format, content, reason string }{
		{"csv", "id,title,text\nd1,t,\"" + many + "\"\n", "CSV record longer than"},
		{"boolq", "[{\"question\": \"" + strings.ReplaceAll(many, "\n", "\\n\",\n\"x\": \"") + "\"}]", "JSON array element longer than"},
		{"trec-topics", "<top>\n<num> Number: q1\n<title>\n" + many + "</top>\n", "topic longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			path := writeFile(t, "in.txt", tt.content)
			_, err := ingest.Files(ctx, st, pid, tt.format, []string{path}, ingest.Options{MaxLine: 64 << 10})
			var le *ingest.LineError
			if !errors.As(err, &le) || !strings.Contains(le.Reason, tt.reason) {
				t.Fatalf("err = %v, want a LineError %q", err, tt.reason)
			}
			// Under the default cap the same file is no record-size error.
			_, err = ingest.Files(ctx, st, pid, tt.format, []string{path}, ingest.Options{})
			if err != nil && strings.Contains(err.Error(), "longer than") {
				t.Fatalf("default cap: %v", err)
			}
		})
	}
}

// TestErrorsQuoteAtMost200Bytes: an error about a bad value quotes a
// clipped, valid-UTF-8 part of it, never the whole line.
func TestErrorsQuoteAtMost200Bytes(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	topics := writeFile(t, "topics.txt", "<top>\n<num> Number: q1\n<title> hello\n</top>\n")
	if _, err := ingest.Files(ctx, st, pid, "trec-topics", []string{topics}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 32<<10) // 64 KiB, two bytes a rune
	tests := []struct{ name, format, content string }{
		{"quest bad token", "quest", `{"query": ` + long + "}\n"},
		{"quest long key", "quest", `{"` + long + `": 1, "docs": []}` + "\n"},
		{"quest missing colon", "quest", `{"` + long + `" 1}` + "\n"},
		{"csv header", "csv", long + ",x\n"},
		{"csv relevance", "csv", "query_id,doc_id,relevance\nq1,d1," + long + "\n"},
		{"csv unknown query", "csv", "query_id,doc_id,relevance\n" + long + ",d1,1\n"},
		{"trec qrels unknown query", "trec-qrels", long + " 0 d1 1\n"},
		{"trec qrels bad grade", "trec-qrels", "q1 0 d1 " + long + "\n"},
		{"trec run bad rank", "trec-run", "q1 Q0 d1 " + long + " 1 run\n"},
		{"trec run bad score", "trec-run", "q1 Q0 d1 1 " + long + " run\n"},
		{"trec topics text outside", "trec-topics", long + "\n"},
		{"trec topics bad id", "trec-topics", "<top>\n<num> Number: " + long + " x\n</top>\n"},
		{"boolq type", "boolq", `{"question": "x", "question_type": "` + long + `"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "bad.txt", tt.content)
			_, err := ingest.Files(ctx, st, pid, tt.format, []string{path}, ingest.Options{})
			if err == nil {
				t.Fatal("imported")
			}
			msg := err.Error()
			if len(msg) > len(path)+1200 || !utf8.ValidString(msg) {
				t.Fatalf("error of %d bytes (valid UTF-8: %v): %.300s…", len(msg), utf8.ValidString(msg), msg)
			}
		})
	}
}

// TestBoolQArrayReadErrorIsNotEndOfArray: a bad line after a complete
// array element failed the JSON decoder's More, which ended the loop as
// if the array were complete: the file imported in part, silently.
func TestBoolQArrayReadErrorIsNotEndOfArray(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	content := "[\n{\"id\": \"b1\", \"question\": \"cats\", \"question_type\": \"and\"}\n, \xff\xfe\n]\n"
	path := writeFile(t, "b.json", content)
	_, err := ingest.Files(ctx, st, pid, "boolq", []string{path}, ingest.Options{})
	var le *ingest.LineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(le.Reason, "UTF-8") {
		t.Fatalf("err = %v, want line 3 not valid UTF-8", err)
	}
	if n, _ := st.CountProject(ctx, pid); n.Queries != 0 {
		t.Fatalf("%d queries imported from a bad file", n.Queries)
	}
}
