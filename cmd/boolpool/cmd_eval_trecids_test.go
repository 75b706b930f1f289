package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalExportedSpacedIDs (issue 25): on a QUEST project whose document
// ids are titles with spaces (and the collision "A b"/"A_b"), retrieve
// --out writes a run and export writes qrels that trec_eval-style readers
// parse; boolpool eval of the two files gives the numbers retrieve eval
// computes in the project (the fixture has a tie of score between "A b"
// and "A_b", which both break by the TREC token, as trec_eval does); the
// id map lists the changed ids.
func TestEvalExportedSpacedIDs(t *testing.T) {
	c := newCLITest(t)
	docs := c.write("docs.jsonl", `{"title": "Merida wren", "text": "wren of the forest merida"}
{"title": "A b", "text": "forest wren song"}
{"title": "A_b", "text": "forest wren nest"}
{"title": "Plain", "text": "desert lark"}
`)
	queries := c.write("q.jsonl", `{"query": "forest wrens", "docs": ["Merida wren", "A b"], "original_query": "<mark>forest wrens</mark>", "scores": null, "metadata": {"template": "_", "split": "val"}}
{"query": "wren nests", "docs": ["A_b"], "original_query": "<mark>wren nests</mark>", "scores": null, "metadata": {"template": "_", "split": "val"}}
`)
	c.must("import", "--project", "p", "--format", "quest", docs, queries)
	c.must("index", "--project", "p")
	runFile := filepath.Join(c.dir, "run.txt")
	c.must("retrieve", "--project", "p", "--method", "bm25", "--name", "bm25", "--out", runFile)
	qrelsFile := filepath.Join(c.dir, "p.qrels")
	c.must("export", "--project", "p", "--format", "trec-qrels", "--out", qrelsFile)
	for _, f := range []string{runFile, qrelsFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			want := 4
			if f == runFile {
				want = 6
			}
			if n := len(strings.Fields(l)); n != want {
				t.Errorf("%s: line %q has %d fields, want %d", filepath.Base(f), l, n, want)
			}
		}
		if !strings.Contains(string(b), " Merida_wren ") || !strings.Contains(string(b), " A_b~2 ") {
			t.Errorf("%s lacks the encoded ids:\n%s", filepath.Base(f), b)
		}
	}
	idmap, _ := c.must("export", "--project", "p", "--format", "idmap")
	if idmap != "kind\ttoken\tid\ndoc\tA_b~2\tA b\ndoc\tMerida_wren\tMerida wren\n" {
		t.Errorf("idmap:\n%s", idmap)
	}

	const metrics = "ndcg@10,recall@100,mrr@10"
	out, _ := c.must("eval", "--qrels", qrelsFile, "--run", runFile, "--metrics", metrics, "--complete", "--json")
	var files evalOutput
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		t.Fatal(err, out)
	}
	out, _ = c.must("retrieve", "eval", "--project", "p", "--runs", "bm25", "--metrics", metrics, "--json")
	var rows []evalRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	var project map[string]float64
	for _, r := range rows {
		if r.Run == "bm25" && r.Template == "all" {
			project = r.Means
		}
	}
	got := files.Runs["run.txt"].Mean
	if project == nil || len(got) != 3 {
		t.Fatalf("eval of the files %v, in the project %v", got, project)
	}
	for _, m := range strings.Split(metrics, ",") {
		if math.Abs(got[m]-project[m]) > 1e-12 {
			t.Errorf("%s: files %v, project %v", m, got[m], project[m])
		}
	}
	if got["recall@100"] == 0 {
		t.Errorf("recall@100 of the files is 0: the ids do not match (%v)", got)
	}
}
