package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestAtomsCLI: import two QUEST queries sharing an atom, sync, store atom
// labels, generate variants, export the derived qrels marked as such, and
// merge / split atoms.
func TestAtomsCLI(t *testing.T) {
	cli := newCLITest(t) // a fresh migrated database and a temporary directory
	ctx, db, write := cli.ctx, cli.db, cli.write
	queries := write("q.jsonl", `{"query": "board games that are also Xlib programs", "docs": ["xvier"], "original_query": "<mark>board games</mark> that are also <mark>Xlib programs</mark>", "scores": null, "metadata": {"template": "_ that are also _"}}
{"query": "Board games", "docs": ["chess", "xvier"], "original_query": "<mark>Board games</mark>", "scores": null, "metadata": {"template": "_"}}
{"query": "X11 programs", "docs": ["xterm"], "original_query": "<mark>X11 programs</mark>", "scores": null, "metadata": {"template": "_"}}
`)
	labels := write("labels.tsv", "board games\tchess\t1\nboard games\txvier\t1\nXlib programs\txvier\t1\nXlib programs\tchess\t0\nX11 programs\txterm\t1\nother atom\td\t1\n")
	do := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		args = append([]string{args[0], args[1], "--database-url", db}, args[2:]...)
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"migrate", "--database-url", db}, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if code := run(ctx, []string{"import", "--database-url", db, "--project", "p", "--format", "quest", queries}, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if got := do("atoms", "sync", "--project", "p"); !strings.Contains(got, "3 queries, 4 atom uses: 4 linked now, 3 atoms created") {
		t.Fatalf("sync: %q", got)
	}
	if got := do("atoms", "labels", "--project", "p", "--file", labels); !strings.Contains(got, "5 atom labels stored; 1 lines") {
		t.Fatalf("labels: %q", got)
	}
	if got := do("atoms", "variants", "--project", "p"); !strings.Contains(got, "3 variant queries") {
		t.Fatalf("variants: %q", got)
	}
	list := do("atoms", "list", "--project", "p")
	if !strings.Contains(list, "board games") || !strings.Contains(list, "2/0/0") {
		t.Fatalf("list:\n%s", list)
	}
	var exp bytes.Buffer
	if code := run(ctx, []string{"export", "--database-url", db, "--project", "p", "--format", "qrels-derived"}, &exp, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	for _, line := range []string{"\t0\txvier\t1\tderived", "\t0\tchess\t0\tderived", "~A&!B\t0\tchess\t1\tderived", "\t0\txterm\t1\tderived"} {
		if !strings.Contains(exp.String(), line+"\n") {
			t.Fatalf("qrels-derived lacks %q:\n%s", line, exp.String())
		}
	}
	// X11 programs and Xlib programs are the same constraint here: merge.
	if got := do("atoms", "merge", "--project", "p", "--into", "xlib programs", "--from", "x11 programs"); !strings.Contains(got, "0 conflicting") {
		t.Fatalf("merge: %q", got)
	}
	var x11Use string
	for _, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "x11 programs") {
			f := strings.Fields(l)
			x11Use = f[len(f)-1]
		}
	}
	if got := do("atoms", "split", "--project", "p", "--atom", "xlib programs", "--uses", x11Use); !strings.Contains(got, "moved 1 uses") {
		t.Fatalf("split: %q", got)
	}
	out.Reset()
	errb.Reset()
	if code := run(ctx, []string{"atoms", "merge", "--database-url", db, "--project", "p", "--into", "nope", "--from", "board games"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--into") {
		t.Fatalf("merge of an unknown key: exit %d %q", code, errb.String())
	}
}
