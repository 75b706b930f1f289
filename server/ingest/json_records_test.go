package ingest_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"boolpool/server/export"
	"boolpool/server/ingest"
	"boolpool/server/store"
)

// Fixtures of each JSON format, each record as its members, written for
// these tests.
var jsonFixtures = []struct {
	name, format, file string
	records            []record
}{
	{"quest queries", "quest", "queries.jsonl", []record{
		{`"query": "Owls or hawks"`, `"docs": ["Barn owl", "Red kite"]`, `"original_query": "<mark>Owls</mark> or <mark>hawks</mark>"`, `"scores": [0.5, 1.0]`, `"metadata": {"template": "_ or _", "domain": "birds"}`},
		{`"query": "Ferns that are not mosses"`, `"docs": ["Bracken"]`, `"original_query": "<mark>Ferns</mark> that are not <mark>mosses</mark>"`, `"scores": null`, `"metadata": {"template": "_ that are not _"}`},
		{`"query": "Lakes in Peru"`, `"docs": []`, `"original_query": "<mark>Lakes in Peru</mark>"`, `"scores": []`, `"metadata": {"template": "_"}`},
	}},
	{"quest documents", "quest", "documents.jsonl", []record{
		{`"title": "Barn owl"`, `"text": "The barn owl hunts at night. It nests in barns."`},
		{`"title": "Bracken"`, `"text": "Bracken is a fern."`},
	}},
	{"beir corpus", "beir", "corpus.jsonl", []record{
		{`"_id": "d1"`, `"title": "Kite"`, `"text": "A bird of prey."`, `"metadata": {}`},
		{`"_id": "d2"`, `"title": "Moss"`, `"text": "A small plant."`, `"metadata": {"url": "u"}`},
	}},
	{"beir queries", "beir", "queries.jsonl", []record{
		{`"_id": "q1"`, `"text": "birds of prey"`, `"metadata": {}`},
		{`"_id": "q2"`, `"text": "plants without flowers"`, `"metadata": {}`},
	}},
	{"boolq", "boolq", "boolq.json", []record{
		{`"id": "b1"`, `"question": "owls but not barn owls"`, `"question_type": "not"`, `"positive_ctxs": [{"title": "Snowy owl", "text": "The snowy owl is white.", "passage_id": "p1"}]`, `"negative_ctxs": [{"title": "Barn owl", "text": "The barn owl hunts at night.", "passage_id": "p2"}]`},
		{`"id": "b2"`, `"question": "ferns or mosses"`, `"question_type": "or"`, `"positive_ctxs": [{"title": "Bracken", "text": "Bracken is a fern.", "passage_id": "p3"}]`, `"negative_ctxs": []`},
	}},
	{"nevir", "nevir", "nevir.jsonl", []record{
		{`"id": "n1"`, `"q1": "which lake is not frozen"`, `"q2": "which lake is frozen"`, `"doc1": "The lake is open water."`, `"doc2": "The lake is ice."`},
		{`"id": "n2"`, `"q1": "who did not sign"`, `"q2": "who signed"`, `"doc1": "Ann refused to sign."`, `"doc2": "Ann signed."`},
	}},
}

// record is one JSON object as its top-level members ("key": value), in
// order: the fixtures are written so, and the array layouts are built from
// the members without parsing anything.
type record []string

// line is the record as one line of JSON.
func (r record) line() string { return "{" + strings.Join(r, ", ") + "}" }

// lines is each record as one line.
func lines(rs []record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.line()
	}
	return out
}

// recordOf splits a one-line JSON object (standard JSON: no NaN) into its
// members with encoding/json, keeping their order and raw values.
func recordOf(t *testing.T, obj string) record {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object (%v): %.80s", err, obj)
	}
	var r record
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			t.Fatal(err)
		}
		var key bytes.Buffer
		enc := json.NewEncoder(&key)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(tok.(string)); err != nil {
			t.Fatal(err)
		}
		r = append(r, strings.TrimSpace(key.String())+": "+string(val))
	}
	return r
}

// compactArray is the records as one JSON array on one line.
func compactArray(lines []string) string { return "[" + strings.Join(lines, ",") + "]" }

// prettyArray is the records as one JSON array over many lines, each
// element's members on lines of their own (as Python's json.dump with
// indent writes it, NaN included). Element i starts on line 2+ i*(k+2)
// for elements of k members.
func prettyArray(records []record) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, members := range records {
		b.WriteString("  {\n")
		for j, m := range members {
			b.WriteString("    " + m)
			if j < len(members)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  }")
		if i < len(records)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.String()
}

// projectState is what a project holds, for comparing two imports.
type projectState struct {
	Counts  store.ProjectCounts
	Queries []string
	Qrels   []string
	Docs    []string
	Export  string
}

func stateOf(t *testing.T, st *store.Store, pid int64, format string) projectState {
	t.Helper()
	ctx := context.Background()
	var s projectState
	var err error
	if s.Counts, err = st.CountProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	qs, err := st.ListQueries(ctx, pid, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		s.Queries = append(s.Queries, q.ExtID+"|"+q.Text+"|"+q.Template+"|"+string(q.Expression))
	}
	if err := st.EachQrel(ctx, pid, "", "", func(r store.Qrel) error {
		s.Qrels = append(s.Qrels, r.QueryExtID+":"+r.DocExtID+":"+r.Kind)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(s.Qrels)
	for _, id := range []string{"Barn owl", "Bracken", "d1", "d2", "p1", "p2", "p3", "n1-doc1", "n2-doc2"} {
		if d, err := st.DocumentByExtID(ctx, pid, id); err == nil {
			s.Docs = append(s.Docs, d.ExtID+"|"+d.Title+"|"+d.Body)
		}
	}
	if format != "beir" {
		var out bytes.Buffer
		if _, err := export.Write(ctx, st, pid, format, &out, export.Options{}); err != nil {
			t.Fatal(err)
		}
		s.Export = out.String()
	}
	return s
}

// TestJSONArrayEveryFormat: every JSON format imports one JSON array,
// compact on one line or pretty-printed over many, exactly as it imports
// the same records as JSON lines. (Before, an array failed with "invalid
// JSON: unexpected end of JSON input" at line 1, or "not a JSON object".)
func TestJSONArrayEveryFormat(t *testing.T) {
	ctx := context.Background()
	for _, fx := range jsonFixtures {
		t.Run(fx.name, func(t *testing.T) {
			st, _ := newProject(t)
			importAs := func(project, content string) (projectState, []ingest.Result) {
				t.Helper()
				p, err := st.EnsureProject(ctx, project)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), fx.file)
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				res, err := ingest.Files(ctx, st, p.ID, fx.format, []string{path}, ingest.Options{})
				if err != nil {
					t.Fatalf("%s: %v", project, err)
				}
				return stateOf(t, st, p.ID, fx.format), res
			}
			want, wantRes := importAs("lines", strings.Join(lines(fx.records), "\n")+"\n")
			if want.Counts.Documents+want.Counts.Queries == 0 {
				t.Fatalf("the JSON lines fixture imported nothing: %+v", want.Counts)
			}
			for name, content := range map[string]string{
				"compact":     compactArray(lines(fx.records)),
				"compact-bom": "\xef\xbb\xbf" + compactArray(lines(fx.records)) + "\n",
				"pretty":      prettyArray(fx.records),
				"pretty-crlf": "\n\n   " + strings.ReplaceAll(prettyArray(fx.records), "\n", "\r\n"),
			} {
				got, res := importAs(name, content)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s array imported\n%+v\nwant (as JSON lines)\n%+v", name, got, want)
				}
				if res[0].Kind != wantRes[0].Kind || res[0].Counts != wantRes[0].Counts {
					t.Fatalf("%s: result %+v, want %+v", name, res[0], wantRes[0])
				}
			}
		})
	}
}

// TestJSONArrayLongerThanALineCap: a compact array on one line longer
// than -max-line imports when each element is under it (the cap bounds
// elements, not the line), and an element over it is refused naming the
// line it starts on.
func TestJSONArrayLongerThanALineCap(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, `{"_id": "q`+strings.Repeat("x", i+1)+`", "text": "`+strings.Repeat("word ", 1000)+`"}`)
	}
	path := writeFile(t, "queries.jsonl", compactArray(lines))
	const limit = 8 << 10 // the line is ~100 KB, an element ~5 KB
	res, err := ingest.Files(ctx, st, pid, "beir", []string{path}, ingest.Options{MaxLine: limit})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Counts.Queries != 20 {
		t.Fatalf("imported %+v, want 20 queries", res[0].Counts)
	}
	big := "[\n" + lines[0] + ",\n\n" + `{"_id": "big", "text": "` + strings.Repeat("word ", 3000) + `"}` + "\n]"
	path = writeFile(t, "queries.jsonl", big)
	_, err = ingest.Files(ctx, st, pid, "beir", []string{path}, ingest.Options{MaxLine: limit})
	var le *ingest.LineError
	if !errors.As(err, &le) || le.Line != 4 || !strings.Contains(le.Reason, "JSON array element longer than 8192 bytes") {
		t.Fatalf("err = %v, want line 4: JSON array element longer than 8192 bytes", err)
	}
}

// TestJSONArrayBadElementNamesItsLineAndField: in a pretty-printed array
// a bad element's error names the line the element starts on, the field
// and the element's position, and nothing of the file is imported.
func TestJSONArrayBadElementNamesItsLineAndField(t *testing.T) {
	tests := []struct {
		name, format, file string
		good, bad          record
		field, reason      string
	}{
		{"quest docs not array", "quest", "q.json", jsonFixtures[0].records[0], record{`"query": "b"`, `"docs": "x"`, `"original_query": "b"`}, "docs", "array of document titles"},
		{"quest nan outside scores", "quest", "q.json", jsonFixtures[0].records[0], record{`"query": "b"`, `"docs": []`, `"metadata": {"x": NaN}`}, "metadata", "NaN"},
		{"beir corpus id not string", "beir", "corpus.jsonl", jsonFixtures[2].records[0], record{`"_id": 7`, `"text": "x"`}, "_id", "must be string"},
		{"beir queries missing text", "beir", "queries.jsonl", jsonFixtures[3].records[0], record{`"_id": "q9"`, `"title": "x"`}, "text", "missing"},
		{"boolq bad type", "boolq", "b.json", jsonFixtures[4].records[0], record{`"id": "b9"`, `"question": "x"`, `"question_type": "xor"`}, "question_type", "not one of"},
		{"boolq passage text not string", "boolq", "b.json", jsonFixtures[4].records[0], record{`"question": "x"`, `"pos": [{"docid": "d1", "text": 3}]`}, "pos[0].text", "must be a string"},
		{"nevir missing doc2", "nevir", "n.json", jsonFixtures[5].records[0], record{`"id": "n9"`, `"q1": "a"`, `"q2": "b"`, `"doc1": "c"`}, "doc2", "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, pid := newProject(t)
			before, _ := st.CountProject(ctx, pid)
			// good, good, bad: the bad element is the third.
			good2 := tt.good
			if tt.format == "nevir" {
				good2 = jsonFixtures[5].records[1] // a pair id may not repeat
			}
			content := prettyArray([]record{tt.good, good2, tt.bad})
			wantLine := strings.Count(prettyArray([]record{tt.good, good2}), "\n")
			path := writeFile(t, tt.file, content)
			_, err := ingest.Files(ctx, st, pid, tt.format, []string{path}, ingest.Options{})
			var le *ingest.LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *ingest.LineError", err, err)
			}
			if le.File != path || le.Line != wantLine || le.Field != tt.field || !strings.Contains(le.Reason, tt.reason) || !strings.Contains(le.Reason, "array element 3") {
				t.Fatalf("error %+v, want line %d field %q reason with %q and array element 3\n%s", le, wantLine, tt.field, tt.reason, content)
			}
			if lines := strings.Split(content, "\n"); strings.TrimSpace(lines[le.Line-1]) != "{" {
				t.Fatalf("line %d is %q, not the element's start", le.Line, lines[le.Line-1])
			}
			if after, _ := st.CountProject(ctx, pid); after != before {
				t.Fatalf("a failed import changed the project: %+v -> %+v", before, after)
			}
		})
	}
}

// TestJSONArrayMalformed: an array that is cut short, has a trailing
// comma, text after it, or a bad separator is refused with the line, and
// nothing is imported.
func TestJSONArrayMalformed(t *testing.T) {
	el, el2 := jsonFixtures[5].records[0].line(), jsonFixtures[5].records[1].line()
	tests := []struct {
		name, content string
		line          int
		reason        string
	}{
		{"cut short", "[\n" + el + ",\n" + el2 + "\n", 4, "ends inside the JSON array"},
		{"cut inside an element", "[\n" + el + ",\n" + el2[:40], 3, "ends inside a JSON array element"},
		{"trailing comma", "[\n" + el + ",\n]\n", 3, "trailing comma"},
		{"text after", "[" + el + "]\n{}\n", 2, "after the JSON array"},
		{"missing comma", "[\n" + el + "\n" + el2 + "]", 3, "expected ',' or ']'"},
		{"element not an object", "[\n" + el + ",\n 42\n]", 3, "not a JSON object"},
		{"nul escape", "[\n" + strings.Replace(el, "frozen", `fro\u0000zen`, 1) + "\n]", 2, "NUL"},
		{"not utf-8", "[\n" + el + ",\n\"\xff\"]", 3, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, pid := newProject(t)
			path := writeFile(t, "n.json", tt.content)
			_, err := ingest.Files(ctx, st, pid, "nevir", []string{path}, ingest.Options{})
			var le *ingest.LineError
			if !errors.As(err, &le) || le.File != path || le.Line != tt.line || !strings.Contains(le.Reason, tt.reason) {
				t.Fatalf("err = %v, want line %d %q", err, tt.line, tt.reason)
			}
			if n, _ := st.CountProject(ctx, pid); n.Queries != 0 || n.Documents != 0 {
				t.Fatalf("a bad file imported %+v", n)
			}
		})
	}
}

// TestQuestPrettyArrayWithNaN: a pretty-printed QUEST array with bare NaN
// in "scores" (as Python writes it) imports; the scores are kept verbatim
// and a note says how many queries had them.
func TestQuestPrettyArrayWithNaN(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	content := `[
  {
    "query": "Owls or hawks",
    "docs": ["Barn owl"],
    "original_query": "<mark>Owls</mark> or <mark>hawks</mark>",
    "scores": [
      0.5,
      NaN,
      -Infinity
    ],
    "metadata": {
      "template": "_ or _",
      "domain": "birds"
    },
    "source": {
      "kind": "test",
      "ids": [
        1,
        2
      ]
    }
  },
  {
    "query": "Lakes in Peru",
    "docs": [],
    "original_query": "<mark>Lakes in Peru</mark>",
    "scores": [NaN],
    "metadata": {"template": "_"}
  }
]
`
	res, err := ingest.Files(ctx, st, pid, "quest", []string{writeFile(t, "train.json", content)}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Counts.Queries != 2 || res[0].Counts.Qrels != 1 {
		t.Fatalf("result %+v", res[0])
	}
	if len(res[0].Notes) != 1 || !strings.Contains(res[0].Notes[0], "2 queries have bare NaN/Infinity") {
		t.Fatalf("notes %q, want one about NaN in 2 queries", res[0].Notes)
	}
	qs, err := st.ListQueries(ctx, pid, "")
	if err != nil {
		t.Fatal(err)
	}
	if qs[0].ScoresRaw == nil || !strings.Contains(*qs[0].ScoresRaw, "NaN") || !strings.Contains(*qs[0].ScoresRaw, "-Infinity") || qs[0].Expression == nil {
		t.Fatalf("query 0: scores %v, expression %s", qs[0].ScoresRaw, qs[0].Expression)
	}
	if qs[1].ScoresRaw == nil || *qs[1].ScoresRaw != "[NaN]" {
		t.Fatalf("query 1 scores %v", qs[1].ScoresRaw)
	}
	// Values kept verbatim are put on one line, spaced as Python's
	// json.dumps writes them, so the export stays JSON lines.
	var out bytes.Buffer
	if _, err := export.Write(ctx, st, pid, "quest", &out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	first := `{"query": "Owls or hawks", "docs": ["Barn owl"], "original_query": "<mark>Owls</mark> or <mark>hawks</mark>", "scores": [0.5, NaN, -Infinity], "metadata": {"template": "_ or _", "domain": "birds"}, "source": {"kind": "test", "ids": [1, 2]}}`
	if lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); len(lines) != 2 || lines[0] != first {
		t.Fatalf("export:\n%s\nwant first line\n%s", out.String(), first)
	}
}

// TestBoolQuestionsPassages: a BoolQuestions file whose passages come
// under other names than positive_ctxs/negative_ctxs (Tevatron's
// *_passages, short pos/neg, plain-string passages) imports them as
// documents, qrels and explicit negatives, and reports the fields it did
// not read. (Before, such a file imported its questions with "0 qrels"
// and said nothing.)
func TestBoolQuestionsPassages(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	content := `[
 {"query_id": 11, "query": "rivers in Chile or Peru", "question_type": "OR", "answers": ["x"],
  "positive_passages": [{"docid": "r1", "title": "Loa River", "text": "The Loa is a river in Chile.", "score": NaN}],
  "negative_passages": [{"docid": "r2", "title": "Nile", "text": "The Nile is in Africa.", "score": 1.5}, {"docid": "r3"}]},
 {"qid": "q12", "question": "owls but not barn owls", "question_type": "not",
  "pos": ["Snowy owls are white.", "Eagle owls are large."], "neg": "Barn owls nest in barns.",
  "hard_negative_ctxs": [{"title": "Hawk", "text": "Hawks hunt by day.", "passage_id": "h1", "has_answer": false}]}
]`
	res, err := ingest.Files(ctx, st, pid, "boolq", []string{writeFile(t, "boolquestions.json", content)}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	// Documents: r1, r2, two pos strings, one neg string, h1 (r3 is an id only).
	if r.Kind != "queries" || r.Counts.Queries != 2 || r.Counts.Documents != 6 || r.Counts.Qrels != 6 {
		t.Fatalf("result %+v", r)
	}
	wantIgnored := map[string]int{"answers": 1, "positive_passages[].score": 1, "negative_passages[].score": 1, "hard_negative_ctxs[].has_answer": 1}
	if !reflect.DeepEqual(r.Ignored, wantIgnored) {
		t.Fatalf("ignored %v, want %v", r.Ignored, wantIgnored)
	}
	if s := r.IgnoredSummary(); !strings.Contains(s, `"answers" (1 record)`) {
		t.Fatalf("summary %q", s)
	}
	// The decomposer's note comes first (questions have no structure).
	if len(r.Notes) != 2 || !strings.HasPrefix(r.Notes[0], "decomposer: 2 queries got an expression") || r.Notes[1] != "passages: 3 positive (qrels), 3 explicit negative (qrels of kind negative), 1 hard negative (documents only), 1 given by id only (judged, no document written)" {
		t.Fatalf("notes %q", r.Notes)
	}
	var got []string
	if err := st.EachQrel(ctx, pid, "", "", func(q store.Qrel) error {
		got = append(got, q.QueryExtID+":"+q.DocExtID+":"+q.Kind)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	snowy, eagle, barn := textID("Snowy owls are white."), textID("Eagle owls are large."), textID("Barn owls nest in barns.")
	want := []string{"11:r1:positive", "11:r2:negative", "11:r3:negative", "q12:" + snowy + ":positive", "q12:" + eagle + ":positive", "q12:" + barn + ":negative"}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("qrels %v\nwant %v", got, want)
	}
	d, err := st.DocumentByExtID(ctx, pid, "r1")
	if err != nil || d.Title != "Loa River" || d.Body != "The Loa is a river in Chile." {
		t.Fatalf("document r1 = %+v, %v", d, err)
	}
	if d, err := st.DocumentByExtID(ctx, pid, snowy); err != nil || d.Body != "Snowy owls are white." {
		t.Fatalf("document %s = %+v, %v", snowy, d, err)
	}
	if _, err := st.DocumentByExtID(ctx, pid, "r3"); err == nil {
		t.Fatal("an id-only passage was written as an empty document")
	}
	qs, _ := st.ListQueries(ctx, pid, "")
	if len(qs) != 2 || qs[0].ExtID != "11" || !strings.Contains(string(qs[0].Metadata), `"question_type": "or"`) && !strings.Contains(string(qs[0].Metadata), `"question_type":"or"`) {
		t.Fatalf("queries %+v", qs)
	}

	// The passages of the id-only reference come from a corpus file of
	// the same format ({"docid", "title", "doc"} records); importing the
	// question file again changes nothing.
	corpus := `{"docid": "r3", "title": "Amazon", "doc": "The Amazon rises in Peru.", "url": "u"}` + "\n"
	res, err = ingest.Files(ctx, st, pid, "boolq", []string{writeFile(t, "corpus.jsonl", corpus)}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Kind != "documents" || res[0].Counts.Documents != 1 || !reflect.DeepEqual(res[0].Ignored, map[string]int{"url": 1}) {
		t.Fatalf("corpus result %+v", res[0])
	}
	if d, err := st.DocumentByExtID(ctx, pid, "r3"); err != nil || d.Body != "The Amazon rises in Peru." || d.Title != "Amazon" {
		t.Fatalf("document r3 = %+v, %v", d, err)
	}
	before, _ := st.CountProject(ctx, pid)
	if _, err := ingest.Files(ctx, st, pid, "boolq", []string{writeFile(t, "boolquestions.json", content)}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := st.CountProject(ctx, pid); after != before {
		t.Fatalf("re-import changed the project: %+v -> %+v", before, after)
	}
	if d, _ := st.DocumentByExtID(ctx, pid, "r3"); d.Body != "The Amazon rises in Peru." {
		t.Fatalf("re-importing the questions blanked the corpus document: %+v", d)
	}
}

// textID is the id the BoolQuestions importer gives a passage that is a
// plain string.
func textID(text string) string {
	h := sha1.Sum([]byte(text))
	return "p" + hex.EncodeToString(h[:6])
}

// TestIgnoredFieldsReported: fields an importer does not read are counted
// per field in the result, for every JSON format that drops fields
// (QUEST keeps unknown fields and reports none).
func TestIgnoredFieldsReported(t *testing.T) {
	tests := []struct {
		format, file, content string
		want                  map[string]int
	}{
		{"nevir", "n.jsonl", `{"id": "n1", "version": 2, "WorkerId": "w", "q1": "a", "q2": "b", "doc1": "c", "doc2": "d"}` + "\n" +
			`{"id": "n2", "version": 2, "q1": "a", "q2": "b", "doc1": "c", "doc2": "d", "note": NaN}` + "\n",
			map[string]int{"version": 2, "WorkerId": 1, "note": 1}},
		{"beir", "corpus.jsonl", `{"_id": "d1", "title": "T", "text": "x", "url": "u"}` + "\n", map[string]int{"url": 1}},
		{"beir", "queries.jsonl", `[{"_id": "q1", "text": "x", "lang": "en"}, {"_id": "q2", "text": "y", "lang": "en"}]`, map[string]int{"lang": 2}},
		{"quest", "q.jsonl", `{"query": "a", "docs": [], "extra": 1}` + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.format+" "+tt.file, func(t *testing.T) {
			st, pid := newProject(t)
			res, err := ingest.Files(context.Background(), st, pid, tt.format, []string{writeFile(t, tt.file, tt.content)}, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res[0].Ignored, tt.want) {
				t.Fatalf("ignored %v, want %v", res[0].Ignored, tt.want)
			}
		})
	}
}

// TestQuestSharedAsPrettyArray: the official QUEST train split rewritten
// as one pretty-printed JSON array (bare NaN scores included) imports
// exactly as the JSON lines file does.
func TestQuestSharedAsPrettyArray(t *testing.T) {
	dir := os.Getenv("BOOLPOOL_SHARED_DATA")
	if dir == "" {
		t.Skip("BOOLPOOL_SHARED_DATA not set: skipping the QUEST train array import")
	}
	path := filepath.Join(dir, "quest", "train.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var records []record
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		records = append(records, recordOf(t, l))
	}
	ctx := context.Background()
	st, _ := newProject(t)
	states := map[string]projectState{}
	for name, file := range map[string]string{"lines": path, "pretty": writeFile(t, "train.json", prettyArray(records))} {
		p, err := st.EnsureProject(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ingest.Files(ctx, st, p.ID, "quest", []string{file}, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Counts.Queries != len(records) {
			t.Fatalf("%s: %d queries, want %d", name, res[0].Counts.Queries, len(records))
		}
		states[name] = stateOf(t, st, p.ID, "quest")
	}
	if !reflect.DeepEqual(states["lines"], states["pretty"]) {
		t.Fatal("the pretty-printed array imported differently from the JSON lines")
	}
}

// TestNevIRPairIDs: a pair without id is named by the line it starts on,
// in JSON lines and in a pretty-printed array alike (as eval's NevIR
// reader names it); two id-less pairs on one line (a compact array) and an
// id given twice are refused instead of merged.
func TestNevIRPairIDs(t *testing.T) {
	ctx := context.Background()
	st, pid := newProject(t)
	pretty := "[\n  {\"q1\": \"a\", \"q2\": \"b\",\n   \"doc1\": \"c\", \"doc2\": \"d\"},\n  {\"q1\": \"e\", \"q2\": \"f\", \"doc1\": \"g\", \"doc2\": \"h\"}\n]\n"
	if _, err := ingest.Files(ctx, st, pid, "nevir", []string{writeFile(t, "n.json", pretty)}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	qs, _ := st.ListQueries(ctx, pid, "")
	for _, q := range qs {
		ids = append(ids, q.ExtID)
	}
	if want := []string{"pair2-q1", "pair2-q2", "pair4-q1", "pair4-q2"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("query ids %v, want %v", ids, want)
	}
	el := `{"q1": "a", "q2": "b", "doc1": "c", "doc2": "d"}`
	for _, tt := range []struct{ name, content, reason string }{
		{"compact without ids", "[" + el + ", " + el + "]", "another pair without id starts on this line"},
		{"id twice", `{"id": 1, "q1": "a", "q2": "b", "doc1": "c", "doc2": "d"}` + "\n\n" + `{"id": "1", "q1": "a", "q2": "b", "doc1": "c", "doc2": "d"}` + "\n", `pair "1" already given on line 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, pid := newProject(t)
			_, err := ingest.Files(ctx, st, pid, "nevir", []string{writeFile(t, "n.json", tt.content)}, ingest.Options{})
			var le *ingest.LineError
			if !errors.As(err, &le) || le.Field != "id" || !strings.Contains(le.Reason, tt.reason) {
				t.Fatalf("err = %v, want field id: %q", err, tt.reason)
			}
		})
	}
}
