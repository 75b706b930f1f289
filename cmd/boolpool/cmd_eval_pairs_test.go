package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"boolpool/server/metrics"
)

func TestReadNevIRPairs(t *testing.T) {
	ctx := context.Background()
	want := []metrics.NevIRPair{
		{Query1: "7-q1", Query2: "7-q2", Doc1: "7-doc1", Doc2: "7-doc2"},
		{Query1: "pair3-q1", Query2: "pair3-q2", Doc1: "pair3-doc1", Doc2: "pair3-doc2"},
	}
	lines := "{\"id\": 7, \"q1\": \"a\"}\n\n{\"q1\": \"b\"}\n"
	got, err := readNevIRPairs(ctx, strings.NewReader(lines), "p.jsonl")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("lines: %v %v", got, err)
	}
	// A pretty-printed array: the id-less pair is named by the line it
	// starts on.
	array := "[\n  {\"id\": 7,\n   \"q1\": \"a\"},\n  {\"q1\": \"b\"}\n]\n"
	want[1] = metrics.NevIRPair{Query1: "pair4-q1", Query2: "pair4-q2", Doc1: "pair4-doc1", Doc2: "pair4-doc2"}
	got, err = readNevIRPairs(ctx, strings.NewReader(array), "p.json")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("array: %v %v", got, err)
	}
	for _, tc := range []struct{ in, msg string }{
		{"{\"id\": 1}\n{\"id\": 2,}\n", "p:2: invalid NevIR pair"},
		{"{\"id\": 1}\n{\"id\": 1}\n", `p:2: field id: pair "1" already given on line 1`},
		{"[\n{\"id\": 1},\n{\"id\": \n", "p:3: invalid JSON"},
	} {
		if _, err := readNevIRPairs(ctx, strings.NewReader(tc.in), "p"); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.msg)
		}
	}
}

// TestRetrieveEvalIsEval: on one stored run whose stored ranks disagree with
// the trec_eval order (score ties), `retrieve eval` and `eval --complete`
// print identical means, including the BoolQuestions pair measure
// (negabove) and NevIR accuracy from the project's pairs; and `eval` takes
// pairs from a NevIR file or from the project alike.
func TestRetrieveEvalIsEval(t *testing.T) {
	c := newCLITest(t)
	ctx, db, write := c.ctx, c.db, c.write
	pairsFile := write("pairs.jsonl", `{"id": "p1", "q1": "birds that fly", "q2": "birds that do not fly", "doc1": "Swallows fly.", "doc2": "Penguins do not fly."}
{"id": "p2", "q1": "drugs that treat pain", "q2": "drugs that do not treat pain", "doc1": "Aspirin treats pain.", "doc2": "Salt does not treat pain."}
{"id": "p3", "q1": "cats that purr", "q2": "cats that do not purr", "doc1": "House cats purr.", "doc2": "Lions do not purr."}
`)
	// p1-q1 ties its two documents: stored rank puts doc1 first, trec_eval
	// doc2 (docid descending). p3-q1 has no line.
	runFile := write("tied.txt", `p1-q1 Q0 p1-doc1 1 1.0 t
p1-q1 Q0 p1-doc2 2 1.0 t
p1-q2 Q0 p1-doc2 1 2.0 t
p1-q2 Q0 p1-doc1 2 1.0 t
p2-q1 Q0 p2-doc1 1 2.0 t
p2-q1 Q0 p2-doc2 2 1.0 t
p2-q2 Q0 p2-doc2 1 2.0 t
p2-q2 Q0 p2-doc1 2 1.0 t
p3-q2 Q0 p3-doc2 1 2.0 t
`)
	qrelsFile := write("qrels.txt", "p1-q1 0 p1-doc1 1\np1-q2 0 p1-doc2 1\np2-q1 0 p2-doc1 1\np2-q2 0 p2-doc2 1\np3-q1 0 p3-doc1 1\np3-q2 0 p3-doc2 1\n")
	negFile := write("neg.txt", "p1-q1 0 p1-doc2 0\np1-q2 0 p1-doc1 0\np2-q1 0 p2-doc2 0\np2-q2 0 p2-doc1 0\np3-q1 0 p3-doc2 0\np3-q2 0 p3-doc1 0\n")
	do := func(args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String(), errb.String()
	}
	do("import", "--database-url", db, "--project", "np", "--format", "nevir", "--no-decompose", pairsFile)
	do("import", "--database-url", db, "--project", "np", "--format", "trec-run", runFile)

	const measures = "mrr@10,ndcg@10,negabove,nevir"
	rOut, rErr := do("retrieve", "eval", "--database-url", db, "--project", "np", "--runs", "tied", "--metrics", measures, "--json")
	var rows []evalRow
	if err := json.Unmarshal([]byte(rOut), &rows); err != nil {
		t.Fatal(err, rOut)
	}
	if len(rows) != 1 || rows[0].Template != "all" {
		t.Fatalf("rows %+v", rows)
	}
	if !strings.Contains(rErr, "run tied: 1 of 6 qrels queries have no line in the run; they score 0 as empty rankings") {
		t.Errorf("retrieve eval stderr: %s", rErr)
	}

	var evals []evalRun
	for _, pairs := range [][]string{{"--project", "np", "--database-url", db}, {"--nevir", pairsFile}} {
		args := append([]string{"eval", "--qrels", qrelsFile, "--negatives", negFile, "--run", runFile, "--metrics", measures, "--complete", "--json"}, pairs...)
		eOut, _ := do(args...)
		var got evalOutput
		if err := json.Unmarshal([]byte(eOut), &got); err != nil {
			t.Fatal(err, eOut)
		}
		evals = append(evals, got.Runs["tied.txt"])
	}
	// Hand-worked: reciprocal ranks 1/2 (tie), 1, 1, 1, 0 (no line), 1;
	// negabove fails on the tie and on p3-q1; NevIR: only p2 is right.
	want := map[string]float64{"mrr@10": 4.5 / 6, "negabove": 2.0 / 6, "nevir": 1.0 / 3}
	for name, w := range want {
		if got := rows[0].Means[name]; got != w && !(name == "mrr@10" && near(got, w)) {
			t.Errorf("retrieve eval %s = %v, want %v", name, got, w)
		}
	}
	for i, e := range evals {
		if !reflect.DeepEqual(e.Mean, rows[0].Means) || !reflect.DeepEqual(e.Count, rows[0].Counts) || e.Queries != rows[0].Queries {
			t.Errorf("eval (%d) %v %v %d\nretrieve eval %v %v %d", i, e.Mean, e.Count, e.Queries, rows[0].Means, rows[0].Counts, rows[0].Queries)
		}
	}
	if rows[0].Counts["nevir"] != 3 {
		t.Errorf("nevir over %d pairs", rows[0].Counts["nevir"])
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
