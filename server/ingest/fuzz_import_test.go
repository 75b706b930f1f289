package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/ingest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// fuzzFormats are the importers FuzzImportFile drives, by the fuzzer's
// first byte. "beir" writes the data as one file of a BEIR directory.
var fuzzFormats = []struct{ format, file string }{
	{"csv", "in.csv"},
	{"boolq", "in.json"},
	{"nevir", "in.jsonl"},
	{"quest", "in.jsonl"},
	{"trec-topics", "topics.txt"},
	{"trec-qrels", "qrels.txt"},
	{"trec-run", "run.txt"},
	{"beir", "corpus.jsonl"},
	{"beir", "queries.jsonl"},
	{"beir", "qrels/test.tsv"},
}

// FuzzImportFile feeds arbitrary bytes to every importer against a real
// database. Whatever the input: no panic; a rejection is a *LineError
// naming the file and leaves the project exactly as it was; an accepted
// file imported a second time changes nothing (imports are upserts).
func FuzzImportFile(f *testing.F) {
	seeds := map[int][]string{
		0: {"id,title,text\nd1,Cat,Cats purr.\n", "id,text,template\nq1,cats but not dogs,_ that are not _\n", "query_id,doc_id,relevance\nq1,d1,2\n", "id,text\nq1,\"unterminated\n"},
		1: {`[{"id": "b1", "question": "cats but not dogs", "question_type": "not", "positive_ctxs": [{"title": "Cat", "text": "Cats purr.", "passage_id": "p1"}], "negative_ctxs": []}]`,
			`{"query_id": 3, "query": "a or b", "positive_passages": [{"docid": "d9", "text": "A.", "score": NaN}], "neg": ["B."]}` + "\n",
			`{"docid": "d9", "title": "T", "doc": "A."}` + "\n",
			`{"question": "x", "question_type": "xor"}` + "\n"},
		2: {`{"id": 7, "q1": "which is not red", "q2": "which is red", "doc1": "The car is blue.", "doc2": "The car is red."}` + "\n",
			"[\n {\"id\": 7, \"q1\": \"a\", \"q2\": \"b\",\n  \"doc1\": \"c\", \"doc2\": \"d\", \"x\": NaN},\n {\"q1\": \"e\", \"q2\": \"f\", \"doc1\": \"g\", \"doc2\": \"h\"}\n]\n"},
		3: {`{"query": "a", "docs": ["x"], "original_query": "<mark>a</mark>", "scores": [NaN], "metadata": {"template": "_"}}` + "\n",
			`{"title": "x", "text": "A document."}` + "\n",
			"[\n  {\n    \"query\": \"a\",\n    \"docs\": [\"x\"],\n    \"scores\": [\n      NaN\n    ]\n  }\n]\n"},
		4: {"<top>\n<num> Number: q1\n<title> hello world\n</top>\n", "q1\thello\n"},
		5: {"q1 0 d1 1\n", "q1 0 d1 x\n"},
		6: {"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25\n", "q1 Q0 d1 1 abc run\n"},
		7: {`{"_id": "d1", "title": "Cat", "text": "Cats purr."}` + "\n", `{"_id": 1}` + "\n", `[{"_id": "d1", "text": "x", "url": 1}]`},
		8: {`{"_id": "q1", "text": "cats"}` + "\n", "[\n{\"_id\": \"q1\", \"text\": \"cats\"}\n,\n]"},
		9: {"query-id\tcorpus-id\tscore\nq1\td1\t1\n", "q1\td1\n"},
	}
	// Repeated keys and high expansion (issue 29): the same row many
	// times, a record of many identical passages or titles.
	many := strings.Repeat(`"a", `, 500) + `"a"`
	seeds[0] = append(seeds[0], "id,title,text\nd1,A,x\nd1,A,y\nd1,B,x\n", "id,text\nq1,a\nq1,b\nq1,a\n")
	seeds[1] = append(seeds[1], `{"id": "h", "question": "q", "positive_ctxs": [`+many+`], "hard_negatives": [`+many+`]}`+"\n",
		`{"id": "b", "question": "x", "pos": ["a"]}`+"\n"+`{"id": "b", "question": "y", "pos": ["b", "b"]}`+"\n")
	seeds[3] = append(seeds[3], `{"query": "a", "docs": [`+many+`]}`+"\n", strings.Repeat(`{"title": "x", "text": "A."}`+"\n", 50))
	seeds[5] = append(seeds[5], strings.Repeat("q1 0 d1 1\n", 200)+"q1 0 d1 0\n")
	seeds[7] = append(seeds[7], strings.Repeat(`{"_id": "d1", "text": "x"}`+"\n", 30))
	for i, ss := range seeds {
		for _, s := range ss {
			f.Add(uint8(i), []byte(s))
		}
	}
	var (
		ctx = context.Background()
		st  = storetest.New(f)
	)
	p, err := st.EnsureProject(ctx, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	// A known query, document and run make qrels and runs importable.
	queries, docs := filepath.Join(f.TempDir(), "queries.jsonl"), filepath.Join(f.TempDir(), "documents.jsonl")
	if err := os.WriteFile(queries, []byte(`{"query": "q1", "docs": ["d1"]}`+"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(docs, []byte(`{"title": "d1", "text": "A document."}`+"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "quest", []string{docs, queries}, ingest.Options{}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ff := fuzzFormats[int(which)%len(fuzzFormats)]
		dir := t.TempDir()
		path := filepath.Join(dir, ff.file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		arg := path
		if ff.format == "beir" {
			arg = dir
		}
		before, err := st.CountProject(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ingest.Files(ctx, st, p.ID, ff.format, []string{arg}, ingest.Options{RunName: "fuzzrun"})
		after, cerr := st.CountProject(ctx, p.ID)
		if cerr != nil {
			t.Fatal(cerr)
		}
		if err != nil {
			var le *ingest.LineError
			if !errors.As(err, &le) {
				t.Fatalf("%s: error %v (%T) is not a *ingest.LineError", ff.format, err, err)
			}
			if le.File != path && le.File != dir {
				t.Fatalf("%s: error names %q, want %q", ff.format, le.File, path)
			}
			if le.Reason == "" || strings.Contains(le.Error(), "SQLSTATE") {
				t.Fatalf("%s: unhelpful error %q", ff.format, le.Error())
			}
			if after != before {
				t.Fatalf("%s: rejected file changed the project: %+v -> %+v (%v)", ff.format, before, after, err)
			}
			return
		}
		for _, r := range res {
			checkDuplicatesReport(t, ff.format, r)
		}
		if _, err := ingest.Files(ctx, st, p.ID, ff.format, []string{arg}, ingest.Options{RunName: "fuzzrun"}); err != nil {
			t.Fatalf("%s: accepted once, rejected the second time: %v", ff.format, err)
		}
		again, err := st.CountProject(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if again != after {
			t.Fatalf("%s: importing the same file twice changed the counts: %+v -> %+v", ff.format, after, again)
		}
	})
}

// checkDuplicatesReport: the duplicates report of an accepted file is
// consistent: lines ascending, positive, at most MaxDuplicateLines of
// them, none without duplicates.
func checkDuplicatesReport(t *testing.T, format string, r ingest.Result) {
	t.Helper()
	c := r.Counts
	if c.Duplicates < 0 || c.Documents < 0 || c.Queries < 0 || c.Qrels < 0 {
		t.Fatalf("%s: counts %+v", format, c)
	}
	if len(r.DuplicateLines) > store.MaxDuplicateLines || c.Duplicates == 0 && len(r.DuplicateLines) > 0 {
		t.Fatalf("%s: %d duplicates at lines %v", format, c.Duplicates, r.DuplicateLines)
	}
	for i, l := range r.DuplicateLines {
		if l < 1 || i > 0 && l <= r.DuplicateLines[i-1] {
			t.Fatalf("%s: duplicate lines %v", format, r.DuplicateLines)
		}
	}
}

// repeatFormats are the importers FuzzRepeatedRecords drives: formats
// whose records carry their own key, so that a record given again is the
// same row. header: the first line is a header, given once.
var repeatFormats = []struct {
	format, file string
	header       bool
}{
	{"csv", "in.csv", true},
	{"trec-qrels", "qrels.txt", false},
	{"trec-topics", "topics.txt", false},
	{"beir", "corpus.jsonl", false},
	{"beir", "queries.jsonl", false},
	{"beir", "qrels/test.tsv", true},
}

// FuzzRepeatedRecords: a file whose records are given again (its body
// repeated 2–9 times) leaves the project exactly as the file given once
// (each row written once, the last record wins and the repeats are the
// same), and reports the repeats as duplicates.
func FuzzRepeatedRecords(f *testing.F) {
	for i, s := range []string{
		"id,title,text\nd1,A,x\nd2,B,y\n", "id,text\nq1,cats\nq3,dogs\n", "query_id,doc_id,relevance\nq1,d1,1\nq2,d2,0\n",
		"q1 0 d1 1\nq2 0 d1 2\n", "<top>\n<num> Number: q7\n<title> hello\n</top>\n",
		`{"_id": "d1", "title": "T", "text": "x"}` + "\n", `{"_id": "q9", "text": "birds"}` + "\n", "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
	} {
		which := []uint8{0, 0, 0, 1, 2, 3, 4, 5}[i]
		f.Add(which, uint8(3), []byte(s))
	}
	ctx := context.Background()
	st := storetest.New(f)
	n := 0
	project := func(t *testing.T) int64 {
		n++
		p, err := st.EnsureProject(ctx, fmt.Sprintf("rep%d", n))
		if err != nil {
			t.Fatal(err)
		}
		q := filepath.Join(t.TempDir(), "q.csv")
		if err := os.WriteFile(q, []byte("id,text\nq1,cats\nq2,dogs\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Files(ctx, st, p.ID, "csv", []string{q}, ingest.Options{NoDecompose: true}); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	f.Fuzz(func(t *testing.T, which, times uint8, data []byte) {
		ff := repeatFormats[int(which)%len(repeatFormats)]
		k := 2 + int(times)%8
		head, body := "", string(data)
		if ff.header {
			if i := strings.IndexByte(body, '\n'); i >= 0 {
				head, body = body[:i+1], body[i+1:]
			} else {
				head, body = body+"\n", ""
			}
		}
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		run := func(content string) (int64, []ingest.Result, error) {
			pid := project(t)
			dir := t.TempDir()
			path := filepath.Join(dir, ff.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			arg := path
			if ff.format == "beir" {
				arg = dir
			}
			res, err := ingest.Files(ctx, st, pid, ff.format, []string{arg}, ingest.Options{NoDecompose: true})
			return pid, res, err
		}
		once, onceRes, err := run(head + body)
		if err != nil {
			return
		}
		many, manyRes, err := run(head + strings.Repeat(body, k))
		if err != nil {
			var le *ingest.LineError
			if !errors.As(err, &le) {
				t.Fatalf("%s: repeated file: %v (%T), want a *ingest.LineError", ff.format, err, err)
			}
			return
		}
		if a, b := projectDigest(t, st, once), projectDigest(t, st, many); a != b {
			t.Fatalf("%s: the body given %d times left\n%s\nthe body given once\n%s", ff.format, k, b, a)
		}
		c1, ck := onceRes[len(onceRes)-1].Counts, manyRes[len(manyRes)-1].Counts
		if rows := c1.Documents + c1.Queries + c1.Qrels; rows > 0 && ck.Duplicates < (k-1)*rows {
			t.Fatalf("%s: %d rows given %d times, %d duplicates reported", ff.format, rows, k, ck.Duplicates)
		}
		checkDuplicatesReport(t, ff.format, manyRes[len(manyRes)-1])
	})
}

// projectDigest describes a project's documents, queries and qrels by
// their keys and content.
func projectDigest(t *testing.T, st *store.Store, pid int64) string {
	t.Helper()
	var d string
	err := st.Pool().QueryRow(context.Background(), `SELECT
		coalesce((SELECT string_agg(ext_id || '=' || md5(title || '|' || body), ',' ORDER BY ext_id) FROM documents WHERE project_id = $1), '') || ' / ' ||
		coalesce((SELECT string_agg(ext_id || '=' || md5(text), ',' ORDER BY ext_id) FROM queries WHERE project_id = $1), '') || ' / ' ||
		coalesce((SELECT string_agg(q.ext_id || ':' || r.doc_ext_id || '=' || r.relevance || r.kind, ',' ORDER BY q.ext_id, r.doc_ext_id, r.kind)
			FROM qrels r JOIN queries q ON q.id = r.query_id WHERE r.project_id = $1), '')`, pid).Scan(&d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
