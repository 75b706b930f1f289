package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// fruitDocs are four documents about fruit, two red, two apples.
const fruitDocs = `{"title": "redapple", "text": "red apple fruit"}
{"title": "greenapple", "text": "green apple fruit"}
{"title": "cherry", "text": "red cherry fruit"}
{"title": "banana", "text": "yellow banana fruit"}
`

// TestPoolSimulateAtomsCLI: `pool simulate --strategies atoms-pools
// --atom-qrels FILE --json` on a tiny project with a BM25 run finds the one
// gold pair, and so do the whole-corpus simulations.
func TestPoolSimulateAtomsCLI(t *testing.T) {
	cli := newCLITest(t) // a fresh migrated database and a temporary directory
	queries := `{"query": "apple fruit that are not red fruit", "docs": ["greenapple"], "original_query": "<mark>apple fruit</mark> that are not <mark>red fruit</mark>", "scores": null, "metadata": {"template": "_ that are not _"}}
`
	oracle := cli.write("atoms.tsv", "Apple fruit\tredapple\t1\napple fruit\tgreenapple\t1\nred fruit\tredapple\t1\nred fruit\tcherry\t1\nred fruit\tbanana\t0\n")
	cli.questWithBM25(fruitDocs, queries)
	out, e, code := cli.exec("pool", "simulate", "--project", "p", "--runs", "bm25", "--depth", "10", "--strategies", "atoms-pools", "--atom-qrels", oracle, "--json")
	if code != 0 {
		t.Fatalf("simulate atoms: exit %d: %s", code, e)
	}
	var res simulateJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	a := res.Strategies["atoms-pools"]
	// Candidates: the run's 4 documents (BM25 matches "fruit" in all); each
	// is decided by one or two atom judgments: at most 8.
	if res.Queries != 1 || res.Gold != 1 || a.Found != 1 || a.Recall != 1 || a.Judgments > 8 || a.JudgmentsTo["0.95"] == nil {
		t.Fatalf("atoms simulation: %s", out)
	}
	// The whole-corpus simulations need no run; each finds the gold pair,
	// the bound no later than the query-level review.
	out, e, code = cli.exec("pool", "simulate", "--project", "p", "--strategies", "atoms,cal-full,cal-bound", "--atom-qrels", oracle, "--json")
	if code != 0 {
		t.Fatalf("simulate atoms: exit %d: %s", code, e)
	}
	res.Strategies = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	for _, name := range []string{"atoms", "cal-full", "cal-bound"} {
		s, ok := res.Strategies[name]
		if !ok || s.Found != 1 || s.Recall != 1 || s.JudgmentsTo["0.95"] == nil || *s.JudgmentsTo["0.95"] > 8 {
			t.Fatalf("%s: %s", name, out)
		}
	}
	if *res.Strategies["cal-bound"].JudgmentsTo["0.5"] > *res.Strategies["cal-full"].JudgmentsTo["0.5"] {
		t.Fatalf("bound above the review: %s", out)
	}
	table, _, code := cli.exec("pool", "simulate", "--project", "p", "--strategies", "atoms,cal-bound", "--atom-qrels", oracle)
	if code != 0 || !strings.Contains(table, "atoms") || !strings.Contains(table, "is a bound, not a strategy") {
		t.Fatalf("table: exit %d:\n%s", code, table)
	}
	// Bad input names the line.
	bad := cli.write("bad.tsv", "apple fruit\tredapple\t1\napple fruit\tgreenapple\tyes\n")
	if _, e, code := cli.exec("pool", "simulate", "--project", "p", "--runs", "bm25", "--strategies", "atoms-pools", "--atom-qrels", bad); code == 0 || !strings.Contains(e, "line 2") {
		t.Fatalf("bad atom qrels: exit %d %q", code, e)
	}
	if _, e, code := cli.exec("pool", "simulate", "--project", "p", "--strategies", "atoms"); code == 0 || !strings.Contains(e, "--atom-qrels") {
		t.Fatalf("missing --atom-qrels: exit %d %q", code, e)
	}
}
