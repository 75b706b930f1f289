package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/store/storetest"
)

// TestRetrievePoolCLI drives index → retrieve → rrf → retrieve eval → pool →
// pool simulate → pool negatives on a tiny QUEST-format project.
func TestRetrievePoolCLI(t *testing.T) {
	ctx := context.Background()
	db := storetest.URL(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
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
		var out, errb bytes.Buffer
		args = append([]string{args[0], "--database-url", db}, args[1:]...)
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	do("migrate")
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
	if !strings.Contains(out.String(), "Judged@10") || !strings.Contains(out.String(), "overlap") {
		t.Fatalf("pool report:\n%s", out.String())
	}
	out.Reset()
	if code := run(ctx, []string{"pool", "simulate", "--database-url", db, "--project", "p", "--runs", "strict,dn", "--depth", "3"}, &out, &errb); code != 0 {
		t.Fatalf("simulate: %s", errb.String())
	}
	if !strings.Contains(out.String(), "bandit") || !strings.Contains(out.String(), "1 queries") {
		t.Fatalf("simulation:\n%s", out.String())
	}
}
