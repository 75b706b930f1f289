package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPoolCALCLI: `boolpool pool --strategy cal` builds a cal pool whose
// first batch holds cal.batch documents per query, each with its origin
// and round, and bad cal parameters are usage errors naming the field.
func TestPoolCALCLI(t *testing.T) {
	cli := newCLITest(t) // a fresh migrated database and a temporary directory
	ctx, db, write := cli.ctx, cli.db, cli.write
	docs := write("docs.jsonl", `{"title": "redapple", "text": "red apple fruit"}
{"title": "greenapple", "text": "green apple fruit"}
{"title": "cherry", "text": "red cherry fruit"}
{"title": "banana", "text": "yellow banana fruit"}
{"title": "granite", "text": "grey granite rock"}
`)
	queries := write("q.jsonl", `{"query": "apple fruit", "docs": ["greenapple"], "original_query": "<mark>apple fruit</mark>", "scores": null, "metadata": {"template": "_"}}
`)
	do := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		args = append([]string{args[0], "--database-url", db}, args[1:]...)
		code := run(ctx, args, &out, &errb)
		return out.String(), errb.String(), code
	}
	for _, args := range [][]string{
		{"migrate"},
		{"import", "--project", "p", "--format", "quest", docs, queries},
		{"index", "--project", "p"},
		{"retrieve", "--project", "p", "--method", "bm25", "--name", "bm25"},
	} {
		if _, e, code := do(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
	}
	out, e, code := do("pool", "--project", "p", "--runs", "bm25", "--depth", "1", "--strategy", "cal", "--cal-batch", "3", "--json")
	if code != 0 {
		t.Fatalf("pool --strategy cal: exit %d: %s", code, e)
	}
	var rep struct {
		Strategy    string
		Composition struct {
			Items    int `json:"items"`
			FromRuns int `json:"from_runs"`
			FromCAL  int `json:"from_cal"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Three documents: the run's top 1 (origin runs) and two of active
	// learning.
	if rep.Strategy != "cal" || rep.Composition.Items != 3 || rep.Composition.FromRuns != 1 || rep.Composition.FromCAL != 2 {
		t.Errorf("report = %+v", rep)
	}
	if _, e, code := do("pool", "--project", "p", "--runs", "bm25", "--strategy", "cal", "--cal-stop", "later"); code == 0 || !strings.Contains(e, "cal.stop") {
		t.Errorf("bad --cal-stop: exit %d: %s", code, e)
	}
}
