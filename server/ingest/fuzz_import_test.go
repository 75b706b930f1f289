package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/ingest"
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
		_, err = ingest.Files(ctx, st, p.ID, ff.format, []string{arg}, ingest.Options{RunName: "fuzzrun"})
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
