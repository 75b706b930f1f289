package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/export"
	"boolpool/server/ingest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/trecfmt"
)

func newProject(t *testing.T) (*store.Store, int64) {
	t.Helper()
	st, p := storetest.NewProject(t, "p1")
	return st, p.ID
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonLines parses a jsonl file into generic values for field-wise equality.
func jsonLines(t *testing.T, b []byte) []any {
	t.Helper()
	var out []any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(bytes.ReplaceAll(l, []byte("NaN"), []byte(`"NaN-token"`))))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("bad json line %s: %v", l, err)
		}
		out = append(out, v)
	}
	return out
}

func roundTrip(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, pid := newProject(t)
	if _, err := ingest.Files(ctx, st, pid, "quest", []string{path}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := export.Write(ctx, st, pid, "quest", &out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := jsonLines(t, orig), jsonLines(t, out.Bytes())
	if len(a) != len(b) {
		t.Fatalf("exported %d lines, imported %d", len(b), len(a))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("line %d differs:\n in: %v\nout: %v", i+1, a[i], b[i])
		}
	}
}

func TestQuestRoundTripSmall(t *testing.T) {
	roundTrip(t, "testdata/quest_small.jsonl")
}

// TestQuestRoundTripShared checks field-identical round trip on the official
// QUEST train split.
func TestQuestRoundTripShared(t *testing.T) {
	dir := os.Getenv("BOOLPOOL_SHARED_DATA")
	if dir == "" {
		t.Skip("BOOLPOOL_SHARED_DATA not set: skipping the QUEST train round trip")
	}
	roundTrip(t, filepath.Join(dir, "quest", "train.jsonl"))
}

func TestQuestImportDetails(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	res, err := ingest.Files(ctx, st, pid, "quest", []string{"testdata/quest_small.jsonl", "testdata/docs_small.jsonl"}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Kind != "queries" || res[0].Counts.Queries != 3 || res[0].Counts.Qrels != 3 {
		t.Fatalf("queries result = %+v", res[0])
	}
	if res[1].Kind != "documents" || res[1].Counts.Documents != 2 {
		t.Fatalf("documents result = %+v", res[1])
	}
	qs, err := st.ListQueries(ctx, pid, "")
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	if q.Template != "_ that are not _" || len(q.Atoms) != 2 || q.Atoms[1].Text != "Birds of Colombia" {
		t.Fatalf("query 0 = %+v", q)
	}
	var expr boolexpr.Expr
	if err := json.Unmarshal(q.Expression, &expr); err != nil {
		t.Fatal(err)
	}
	if want := boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))); !boolexpr.Equal(&expr, want) {
		t.Fatalf("expression = %s, want %s", expr.String(), want.String())
	}
	text := "Birds of the Venezuelan Andes that are not Birds of Colombia"
	if a := q.Atoms[1]; text[a.Start:a.End] != a.Text {
		t.Fatalf("atom span %d-%d does not select %q in %q", a.Start, a.End, a.Text, text)
	}
	if qs[1].ScoresRaw == nil || *qs[1].ScoresRaw != "[0.5, NaN, 1e-3]" {
		t.Fatalf("scores kept verbatim? got %v", qs[1].ScoresRaw)
	}
	d, err := st.DocumentByExtID(ctx, pid, "Andean condor")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.SentenceStarts, []int32{0, 29}) {
		t.Fatalf("sentence starts = %v", d.SentenceStarts)
	}
	// Re-import is idempotent.
	if _, err := ingest.Files(ctx, st, pid, "quest", []string{"testdata/quest_small.jsonl", "testdata/docs_small.jsonl"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	c, _ := st.CountProject(ctx, pid)
	if c.Queries != 3 || c.Documents != 2 || c.Qrels != 3 {
		t.Fatalf("after re-import counts = %+v", c)
	}
}

func TestBadInputNamesFileLineFieldAndImportsNothing(t *testing.T) {
	good := `{"query": "a", "docs": ["x"], "original_query": "<mark>a</mark>", "metadata": {"template": "_"}}` + "\n"
	tests := []struct {
		name, format, content string
		line                  int
		field, reason         string
	}{
		{"not json", "quest", good + "{oops\n", 2, "", "expected a string"},
		{"docs not array", "quest", good + `{"query": "b", "docs": "x"}` + "\n", 2, "docs", "array"},
		{"query missing", "quest", good + good + `{"docs": []}` + "\n", 3, "query", "missing"},
		{"query not string", "quest", `{"query": 3, "docs": []}` + "\n", 1, "query", "must be a string"},
		{"nan in metadata", "quest", good + `{"query": "b", "docs": [], "metadata": {"x": NaN}}` + "\n", 2, "metadata", "NaN"},
		{"bad mark", "quest", good + `{"query": "b", "docs": [], "original_query": "<mark>b"}` + "\n", 2, "original_query", "mark"},
		{"nul character", "quest", good + `{"query": "a\u0000b", "docs": []}` + "\n", 2, "", "NUL"},
		{"duplicate key", "quest", `{"query": "a", "query": "b", "docs": []}` + "\n", 1, "", "twice"},
		{"csv bad relevance", "csv", "id,text\nq1,hello\n", 0, "", ""},
		{"trec qrels unknown query", "trec-qrels", "nope 0 d1 1\n", 1, "qid", "unknown query"},
		{"trec qrels bad rel", "trec-qrels", "q1 0 d1 x\n", 1, "rel", ""},
		{"trec run bad score", "trec-run", "q1 Q0 d1 1 abc run\n", 1, "score", ""},
		{"boolq bad type", "boolq", `{"question": "x", "question_type": "xor"}` + "\n", 1, "question_type", "not one of"},
		{"nevir missing doc2", "nevir", `{"id": 1, "q1": "a", "q2": "b", "doc1": "c"}` + "\n", 1, "doc2", "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, pid := newProject(t)
			if tt.format == "csv" {
				// A valid CSV must import; used here as a positive control.
				path := writeFile(t, "q.csv", tt.content)
				if _, err := ingest.Files(ctx, st, pid, "csv", []string{path}, ingest.Options{}); err != nil {
					t.Fatal(err)
				}
				return
			}
			if strings.HasPrefix(tt.format, "trec-") {
				// Known query q1 for the TREC cases.
				topics := writeFile(t, "topics.tsv", "<top>\n<num> Number: q1\n<title> hello\n</top>\n")
				if _, err := ingest.Files(ctx, st, pid, "trec-topics", []string{topics}, ingest.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := st.CountProject(ctx, pid)
			path := writeFile(t, "input.jsonl", tt.content)
			_, err := ingest.Files(ctx, st, pid, tt.format, []string{path}, ingest.Options{})
			var le *ingest.LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *ingest.LineError", err, err)
			}
			if le.File != path || le.Line != tt.line || le.Field != tt.field || !strings.Contains(le.Reason, tt.reason) {
				t.Fatalf("error %+v, want line %d field %q reason containing %q", le, tt.line, tt.field, tt.reason)
			}
			after, _ := st.CountProject(ctx, pid)
			if after != before {
				t.Fatalf("a failed import changed the project: %+v -> %+v", before, after)
			}
		})
	}
}

func TestBEIRAndTRECRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "qrels"), 0o755))
	corpus := `{"_id": "d1", "title": "T1", "text": "Alpha beta. Gamma delta.", "metadata": {}}` + "\n" +
		`{"_id": "d2", "title": "T2", "text": "Epsilon.", "metadata": {"url": "u"}}` + "\n"
	queries := `{"_id": "q1", "text": "alpha", "metadata": {}}` + "\n" + `{"_id": "q2", "text": "epsilon", "metadata": {}}` + "\n"
	qrels := "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td2\t1\n"
	must(os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(corpus), 0o600))
	must(os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(queries), 0o600))
	must(os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), []byte(qrels), 0o600))
	res, err := ingest.Files(ctx, st, pid, "beir", []string{dir}, ingest.Options{})
	must(err)
	if len(res) != 3 {
		t.Fatalf("results = %+v", res)
	}
	out := t.TempDir()
	_, err = export.WriteDir(ctx, st, pid, "beir", out, export.Options{})
	must(err)
	got, _ := os.ReadFile(filepath.Join(out, "qrels", "test.tsv"))
	if string(got) != qrels {
		t.Fatalf("qrels export:\n%s\nwant:\n%s", got, qrels)
	}
	gotCorpus, _ := os.ReadFile(filepath.Join(out, "corpus.jsonl"))
	if !reflect.DeepEqual(jsonLines(t, gotCorpus), jsonLines(t, []byte(corpus))) {
		t.Fatalf("corpus export:\n%s", gotCorpus)
	}
	// TREC qrels and runs.
	var buf bytes.Buffer
	_, err = export.Write(ctx, st, pid, "trec-qrels", &buf, export.Options{})
	must(err)
	if buf.String() != "q1 0 d1 2\nq2 0 d2 1\n" {
		t.Fatalf("trec qrels = %q", buf.String())
	}
	// TREC topics, written by trecfmt and read back by it.
	buf.Reset()
	_, err = export.Write(ctx, st, pid, "trec-topics", &buf, export.Options{})
	must(err)
	topics, err := trecfmt.ReadTopics(ctx, &buf, "topics")
	must(err)
	if want := []trecfmt.Topic{{ID: "q1", Title: "alpha"}, {ID: "q2", Title: "epsilon"}}; !reflect.DeepEqual(topics, want) {
		t.Fatalf("trec topics export read back as %+v, want %+v", topics, want)
	}
	run := writeFile(t, "bm25.run", "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25\nq2 Q0 d2 1 3 bm25\n")
	_, err = ingest.Files(ctx, st, pid, "trec-run", []string{run}, ingest.Options{})
	must(err)
	buf.Reset()
	_, err = export.Write(ctx, st, pid, "trec-run", &buf, export.Options{Run: "bm25"})
	must(err)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "q1 Q0 d1 1 2.5") {
		t.Fatalf("trec run export = %q", buf.String())
	}
}

func TestBoolQAndNevIR(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	boolq := `[{"id": "b1", "question": "cats but not dogs", "question_type": "not",
	  "positive_ctxs": [{"title": "Cat", "text": "Cats purr.", "passage_id": "p1"}],
	  "negative_ctxs": [{"title": "Dog", "text": "Dogs bark.", "passage_id": "p2"}]}]`
	_, err := ingest.Files(ctx, st, pid, "boolq", []string{writeFile(t, "b.json", boolq)}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nevir := `{"id": 7, "q1": "which is not red", "q2": "which is red", "doc1": "The car is blue.", "doc2": "The car is red."}` + "\n"
	_, err = ingest.Files(ctx, st, pid, "nevir", []string{writeFile(t, "n.jsonl", nevir)}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pos, neg []string
	err = st.EachQrel(ctx, pid, "", "", func(r store.Qrel) error {
		s := r.QueryExtID + ":" + r.DocExtID
		if r.Kind == "positive" {
			pos = append(pos, s)
		} else {
			neg = append(neg, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pos, []string{"b1:p1", "7-q1:7-doc1", "7-q2:7-doc2"}) {
		t.Fatalf("positives = %v", pos)
	}
	if !reflect.DeepEqual(neg, []string{"b1:p2", "7-q1:7-doc2", "7-q2:7-doc1"}) {
		t.Fatalf("negatives = %v", neg)
	}
	// Both export back to their own formats.
	var out bytes.Buffer
	if _, err := export.Write(ctx, st, pid, "nevir", &out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := `{"id": "7", "q1": "which is not red", "q2": "which is red", "doc1": "The car is blue.", "doc2": "The car is red."}` + "\n"; out.String() != want {
		t.Fatalf("nevir export %q, want %q", out.String(), want)
	}
	out.Reset()
	if _, err := export.Write(ctx, st, pid, "boolq", &out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(out.String(), "\n", 2)[0]
	var rec struct {
		ID       string                                    `json:"id"`
		Type     string                                    `json:"question_type"`
		Positive []struct{ Title, Text, PassageID string } `json:"positive_ctxs"`
		Negative []struct{ Title, Text, PassageID string } `json:"negative_ctxs"`
	}
	if err := json.Unmarshal([]byte(first), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID != "b1" || rec.Type != "not" || len(rec.Positive) != 1 || rec.Positive[0].Text != "Cats purr." || len(rec.Negative) != 1 || rec.Negative[0].Title != "Dog" {
		t.Fatalf("boolq export %s", first)
	}
}
