package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPoolAtomsPublishCLI: `boolpool pool --strategy atoms` publishes an
// atoms pool with its first batch of constraint items (the next batches
// are atoms-batch jobs, TestAtomsPoolGrows); bad atoms flags name the field.
func TestPoolAtomsPublishCLI(t *testing.T) {
	cli := newCLITest(t) // a fresh migrated database and a temporary directory
	docs := `{"title": "chess", "text": "chess is a board game"}
{"title": "xvier", "text": "xvier is a board game for Xlib"}
{"title": "xterm", "text": "xterm is a terminal for Xlib"}
{"title": "go", "text": "go is a board game"}
`
	queries := `{"query": "board games that are also Xlib programs", "docs": ["xvier"], "original_query": "<mark>board games</mark> that are also <mark>Xlib programs</mark>", "scores": null, "metadata": {"template": "_ that are also _"}}
{"query": "Board games", "docs": ["chess", "xvier", "go"], "original_query": "<mark>Board games</mark>", "scores": null, "metadata": {"template": "_"}}
`
	cli.questWithBM25(docs, queries)
	if _, e, code := cli.exec("pool", "--project", "p", "--runs", "bm25", "--strategy", "atoms", "--atoms-batch", "-1"); code == 0 || !strings.Contains(e, "atoms.batch") {
		t.Fatalf("bad --atoms-batch: exit %d: %s", code, e)
	}
	if _, e, code := cli.exec("pool", "--project", "p", "--runs", "bm25", "--strategy", "atoms", "--atoms-candidates", "all"); code == 0 || !strings.Contains(e, "atoms.candidates") {
		t.Fatalf("bad --atoms-candidates: exit %d: %s", code, e)
	}
	out, _ := cli.must("pool", "--project", "p", "--runs", "bm25", "--depth", "4", "--strategy", "atoms", "--atoms-batch", "2", "--json")
	var rep struct {
		PoolID          int64  `json:"pool_id"`
		Strategy        string `json:"strategy"`
		ConstraintItems int    `json:"constraint_items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Strategy != "atoms" || rep.ConstraintItems != 2 || rep.PoolID == 0 {
		t.Fatalf("report = %+v", rep)
	}
	st := cli.store()
	items, pending, err := st.AtomPoolState(cli.ctx, rep.PoolID)
	if err != nil || items != 2 || pending != 2 {
		t.Fatalf("pool state: %d items, %d pending, %v; want 2 unlabelled constraint items", items, pending, err)
	}
	var status string
	if err := st.Pool().QueryRow(cli.ctx, `SELECT status FROM pools WHERE id = $1`, rep.PoolID).Scan(&status); err != nil || status != "published" {
		t.Fatalf("pool status %q %v, want published", status, err)
	}
	text, _ := cli.must("pool", "--project", "p", "--runs", "bm25", "--depth", "4", "--strategy", "atoms", "--name", "second")
	// The first pool asked the two most useful pairs; the second asks the
	// next ones, never a pair that has an item.
	if !strings.Contains(text, "strategy atoms): published with 2 constraint items") {
		t.Fatalf("text report: %s", text)
	}
	// Candidates from the whole corpus: of the 8 (atom, document) pairs,
	// the 4 asked by the first two pools wait for their labels; the corpus
	// pool asks some of the others (a document whose most decisive atom is
	// awaited waits too).
	out, _ = cli.must("pool", "--project", "p", "--runs", "bm25", "--depth", "1", "--strategy", "atoms", "--atoms-candidates", "corpus", "--atoms-batch", "3", "--name", "corpus", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.ConstraintItems < 1 || rep.ConstraintItems > 3 {
		t.Fatalf("corpus pool: %v %s", err, out)
	}
}
