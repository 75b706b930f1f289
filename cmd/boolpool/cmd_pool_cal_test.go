package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPoolCALCLI: `boolpool pool --strategy cal` builds a cal pool whose
// first batch holds cal.batch documents per query, each with its origin
// and round, and bad cal parameters are usage errors naming the field.
func TestPoolCALCLI(t *testing.T) {
	cli := newCLITest(t) // a fresh migrated database and a temporary directory
	docs := fruitDocs + `{"title": "granite", "text": "grey granite rock"}
`
	queries := `{"query": "apple fruit", "docs": ["greenapple"], "original_query": "<mark>apple fruit</mark>", "scores": null, "metadata": {"template": "_"}}
`
	cli.questWithBM25(docs, queries)
	out, e, code := cli.exec("pool", "--project", "p", "--runs", "bm25", "--depth", "1", "--strategy", "cal", "--cal-batch", "3", "--json")
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
	if _, e, code := cli.exec("pool", "--project", "p", "--runs", "bm25", "--strategy", "cal", "--cal-stop", "later"); code == 0 || !strings.Contains(e, "cal.stop") {
		t.Errorf("bad --cal-stop: exit %d: %s", code, e)
	}
}
