package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetrievePoolCLI drives index → retrieve → rrf → retrieve eval → pool →
// pool simulate → pool negatives on a tiny QUEST-format project.
func TestRetrievePoolCLI(t *testing.T) {
	c := newCLITest(t)
	ctx, db, dir, write := c.ctx, c.db, c.dir, c.write
	docs := write("docs.jsonl", `{"title": "redapple", "text": "red apple fruit"}
{"title": "greenapple", "text": "green apple fruit"}
{"title": "cherry", "text": "red cherry fruit"}
{"title": "banana", "text": "yellow banana fruit"}
{"title": "pie", "text": "apple pie recipe"}
`)
	queries := write("q.jsonl", `{"query": "apple fruit that are not red fruit", "docs": ["greenapple"], "original_query": "<mark>apple fruit</mark> that are not <mark>red fruit</mark>", "scores": null, "metadata": {"template": "_ that are not _", "split": "val", "atoms": ["t::apple", "t::red"]}}
`)
	members := write("memberships.tsv", "title\tsection\tatoms\ttwins\nredapple\ts\tt::apple,t::red\t\ngreenapple\ts\tt::apple\t\ncherry\ts\tt::red\t\n")
	do := func(args ...string) string {
		t.Helper()
		out, _ := c.must(args...)
		return out
	}
	do("import", "--project", "p", "--format", "quest", docs, queries)
	if out := do("index", "--project", "p"); !strings.Contains(out, "5 documents") {
		t.Fatalf("index: %q", out)
	}
	runFile := filepath.Join(dir, "run.txt")
	do("retrieve", "--project", "p", "--method", "bm25-strict-boolean", "--param", "atom_match=all", "--name", "strict", "--out", runFile)
	got, _ := os.ReadFile(runFile)
	if lines := strings.Split(strings.TrimSpace(string(got)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], " greenapple 1 ") {
		t.Fatalf("strict run file:\n%s", got)
	}
	do("retrieve", "--project", "p", "--method", "sparse-disentangled-negation", "--name", "dn")
	do("retrieve", "--project", "p", "--method", "rrf", "--param", "runs=strict,dn", "--name", "fused")

	var out, errb bytes.Buffer
	if code := run(ctx, []string{"retrieve", "--database-url", db, "--project", "p", "--method", "nope"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "bm25") {
		t.Fatalf("unknown method: exit %d %q", code, errb.String())
	}

	negFile := filepath.Join(dir, "neg.qrels")
	out.Reset()
	errb.Reset()
	if code := run(ctx, []string{"pool", "negatives", "--database-url", db, "--project", "p", "--memberships", members, "--out", negFile}, &out, &errb); code != 0 {
		t.Fatalf("negatives: %s", errb.String())
	}
	neg, _ := os.ReadFile(negFile)
	if strings.TrimSpace(string(neg)) != strings.Split(string(got), " ")[0]+" 0 redapple 1" {
		t.Fatalf("negatives %q", neg)
	}
	out.Reset()
	if code := run(ctx, []string{"retrieve", "eval", "--database-url", db, "--project", "p", "--negatives", negFile}, &out, &errb); code != 0 {
		t.Fatalf("eval: %s", errb.String())
	}
	if !strings.Contains(out.String(), "strict") || !strings.Contains(out.String(), "_ that are not _") {
		t.Fatalf("eval table:\n%s", out.String())
	}
	out.Reset()
	if code := run(ctx, []string{"pool", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "3", "--strategy", "bandit", "--probes"}, &out, &errb); code != 0 {
		t.Fatalf("pool: %s", errb.String())
	}
	if !strings.Contains(out.String(), "Judged@10") || !strings.Contains(out.String(), "overlap") || strings.Contains(out.String(), "published") {
		t.Fatalf("pool report:\n%s", out.String())
	}
	// --publish publishes it as the pool builder's job does (pooling.Make);
	// the draft of the same name is replaced by the published pool, which
	// cannot be built again.
	out.Reset()
	if code := run(ctx, []string{"pool", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "3", "--strategy", "bandit", "--probes", "--publish"}, &out, &errb); code != 0 {
		t.Fatalf("pool --publish: %s", errb.String())
	}
	if !strings.Contains(out.String(), "published: ") || !strings.Contains(out.String(), "new relevance items") {
		t.Fatalf("pool --publish report:\n%s", out.String())
	}
	errb.Reset()
	if code := run(ctx, []string{"pool", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "3", "--strategy", "bandit"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "published") {
		t.Fatalf("pool over a published pool: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "3"}, &out, &errb); code != 0 {
		t.Fatalf("simulate: %s", errb.String())
	}
	if !strings.Contains(out.String(), "bandit") || !strings.Contains(out.String(), "1 queries") {
		t.Fatalf("simulation:\n%s", out.String())
	}
	// The JSON contract, with a qrels file as the oracle (pie is relevant
	// too and not in the runs' depth-1 pool), a budget and the chart.
	qrels := write("gold.qrels", "q0 0 greenapple 1\nq0 0 pie 1\nq0 0 banana 0\n")
	qid := strings.Split(string(got), " ")[0]
	if qid != "q0" {
		qrels = write("gold.qrels", qid+" 0 greenapple 1\n"+qid+" 0 pie 1\n"+qid+" 0 banana 0\n")
	}
	svg := filepath.Join(dir, "recall.svg")
	out.Reset()
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "1",
		"--qrels", qrels, "--strategies", "depth,cal", "--budget", "4", "--json", "--svg", svg}, &out, &errb); code != 0 {
		t.Fatalf("simulate --json: %s", errb.String())
	}
	var sim simulateJSON
	if err := json.Unmarshal(out.Bytes(), &sim); err != nil {
		t.Fatalf("simulate --json: %v\n%s", err, out.String())
	}
	cs := sim.Strategies["cal"]
	if sim.Queries != 1 || sim.Gold != 2 || len(sim.Strategies) != 2 || cs.Judgments > 4 || cs.Found != 2 || cs.Recall != 1 ||
		len(cs.JudgmentsTo) != 4 || cs.JudgmentsTo["0.95"] == nil {
		t.Fatalf("simulate --json:\n%s", out.String())
	}
	if d := sim.Strategies["depth"]; d.Found != 1 || d.JudgmentsTo["0.8"] != nil {
		t.Fatalf("depth should find only greenapple:\n%s", out.String())
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("svg: %v", err)
	}
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict", "--strategies", "depth,atoms"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), `"atoms"`) {
		t.Fatalf("unknown strategy: exit %d %q", code, errb.String())
	}
	errb.Reset()
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict", "--strategies", "cal", "--cal-features", "dense"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--cal-features") {
		t.Fatalf("bad --cal-features: exit %d %q", code, errb.String())
	}
	// lexical+dense needs the documents' stored vectors (boolpool encode).
	errb.Reset()
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict", "--qrels", qrels,
		"--strategies", "cal", "--cal-features", "lexical+dense"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "minilm-static") {
		t.Fatalf("lexical+dense without vectors: exit %d %q", code, errb.String())
	}
}

// TestRetrieveEvalBM25Variants: `retrieve --list` documents qtf, and
// `retrieve eval --bm25-variants` reports bm25 with each query-term
// weighting per template; on a "_ or _ or _" query repeating its head word,
// unique terms rank the second relevant document higher.
func TestRetrieveEvalBM25Variants(t *testing.T) {
	c := newCLITest(t)
	write := c.write
	docs := write("docs.jsonl", `{"title": "generic", "text": "software software software tools"}
{"title": "python", "text": "python web framework"}
{"title": "java", "text": "java build software"}
{"title": "f1", "text": "office software"}
{"title": "f2", "text": "garden tools"}
{"title": "f3", "text": "kitchen knives"}
{"title": "f4", "text": "mountain bikes"}
`)
	queries := write("q.jsonl", `{"query": "python software or java software or rust software", "docs": ["python", "java"], "original_query": "<mark>python software</mark> or <mark>java software</mark> or <mark>rust software</mark>", "scores": null, "metadata": {"template": "_ or _ or _", "split": "val"}}
`)
	do := c.must
	var list bytes.Buffer
	if err := printMethods(&list); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(list.String(), "--param qtf=count"); n != 6 {
		t.Errorf("retrieve --list names qtf %d times (want bm25, strict, pnorm and the 3 sparse methods):\n%s", n, list.String())
	}
	do("import", "--project", "p", "--format", "quest", docs, queries)
	out, _ := do("retrieve", "eval", "--project", "p", "--bm25-variants", "--metrics", "ndcg@10,mrr@10", "--json")
	var rows []evalRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	ndcg := map[string]float64{}
	for _, r := range rows {
		if r.Template == "_ or _ or _" {
			ndcg[r.Run] = r.Means["ndcg@10"]
		}
	}
	// count: java 1, python 4 of generic, f1; unique: java 1, python 2.
	idcg := 1 + 1/math.Log2(3)
	want := map[string]float64{
		"bm25.qtf=count (not stored)":  (1 + 1/math.Log2(5)) / idcg,
		"bm25.qtf=unique (not stored)": 1,
	}
	for run, w := range want {
		if got, ok := ndcg[run]; !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: ndcg@10 %v (present %v), want %v; rows %+v", run, got, ok, w, rows)
		}
	}
	table, _ := do("retrieve", "eval", "--project", "p", "--bm25-variants")
	if !strings.Contains(table, "_ or _ or _  bm25.qtf=unique (not stored)") {
		t.Errorf("table:\n%s", table)
	}
}
