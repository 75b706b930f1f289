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

// TestREADMEWalkthrough runs the walkthrough block of docs/metrics.md
// ("Walkthrough: negation on NevIR and BoolQuestions", linked from the
// README) as written: every "$ bin/boolpool …" line in a database of its
// own, from a scratch directory (fixture paths are the checkout's), and
// checks that each command's output holds every line the page shows under
// it (spaces normalised).
func TestREADMEWalkthrough(t *testing.T) {
	root, page, _ := pageTest(t, walkthroughPage)
	steps := walkthroughSteps(t, page)
	if len(steps) < 10 {
		t.Fatalf("the walkthrough block has %d commands", len(steps))
	}
	ctx := context.Background()
	// 'make db' migrates the database the walkthrough's DATABASE_URL names.
	var mout, merr bytes.Buffer
	if code := run(ctx, []string{"migrate"}, &mout, &merr); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, merr.String())
	}
	for _, st := range steps {
		args := checkoutArgs(root, st.cmd)
		var out, errb bytes.Buffer
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("$ bin/boolpool %s: exit %d\n%s%s", st.cmd, code, out.String(), errb.String())
		}
		got := map[string]bool{}
		for _, l := range strings.Split(out.String(), "\n") {
			got[strings.Join(strings.Fields(l), " ")] = true
		}
		for _, want := range st.want {
			if !got[strings.Join(strings.Fields(want), " ")] {
				t.Errorf("$ bin/boolpool %s\n%s shows %q; the command printed:\n%s", st.cmd, walkthroughPage, want, out.String())
			}
		}
	}
}

// walkthroughPage is the page, relative to the checkout, that holds the
// walkthrough block.
const walkthroughPage = "docs/metrics.md"

type walkStep struct {
	cmd  string   // the command line after "bin/boolpool "
	want []string // the output lines the page shows under it
}

// walkthroughSteps reads the console block under the walkthrough heading.
func walkthroughSteps(t *testing.T, page string) []walkStep {
	t.Helper()
	_, rest, ok := strings.Cut(page, "## Walkthrough: negation on NevIR and BoolQuestions")
	if !ok {
		t.Fatal(walkthroughPage + " has no walkthrough heading")
	}
	_, rest, ok = strings.Cut(rest, "```console\n")
	if !ok {
		t.Fatal(walkthroughPage + " walkthrough has no console block")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal(walkthroughPage + " walkthrough block is not closed")
	}
	var steps []walkStep
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		if cmd, ok := strings.CutPrefix(l, "$ bin/boolpool "); ok {
			steps = append(steps, walkStep{cmd: cmd})
			continue
		}
		if len(steps) == 0 {
			t.Fatalf("%s walkthrough: output %q before any command", walkthroughPage, l)
		}
		steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
	}
	return steps
}

// TestREADMETour runs the README's five-minute tour as written: on a
// database holding what 'make run' loads (boolpool demo load), every
// "bin/boolpool …" line of the tour's sh blocks (comments after '#'
// dropped), in order, from a scratch directory, each exiting 0; and the
// files the tour writes exist and are not empty.
func TestREADMETour(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the demo project")
	}
	root, readme, dir := pageTest(t, "README.md")
	cmds := tourCommands(t, readme)
	if len(cmds) < 8 {
		t.Fatalf("the tour has %d commands", len(cmds))
	}
	ctx := context.Background()
	for _, c := range append([]string{"migrate", "demo load"}, cmds...) {
		args := checkoutArgs(root, c)
		var out, errb bytes.Buffer
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("$ bin/boolpool %s: exit %d\n%s%s", c, code, out.String(), errb.String())
		}
	}
	for _, f := range []string{"pnorm5.run", "gold.qrels", "judged.jsonl", "demo-beir/corpus.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("the tour should have written %s (not empty): %v", f, err)
		}
	}
}

// tourCommands returns the "bin/boolpool …" lines of the sh blocks under
// the README's tour heading, up to the next "## " heading, without the
// "bin/boolpool " prefix and without trailing comments.
func tourCommands(t *testing.T, readme string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README has no tour heading")
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	var cmds []string
	for _, l := range strings.Split(section, "\n") {
		cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "bin/boolpool ")
		if !ok {
			continue
		}
		cmd, _, _ = strings.Cut(cmd, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	return cmds
}

// pageTest prepares a test that runs the commands of a page of the
// checkout as written: it returns the checkout's root and the page (a
// path from the root), gives the test a database of its own
// (DATABASE_URL) and the checkout's encoder cache unless BOOLPOOL_CACHE
// names one, and moves it to a scratch directory, dir.
func pageTest(t *testing.T, path string) (root, page, dir string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", storetest.URL(t))
	if os.Getenv("BOOLPOOL_CACHE") == "" {
		t.Setenv("BOOLPOOL_CACHE", filepath.Join(root, ".cache"))
	}
	dir = t.TempDir()
	t.Chdir(dir)
	return root, string(b), dir
}

// checkoutArgs splits a documented command line into its words, the
// paths of the checkout's files (cmd/…, server/…) made absolute: the
// command runs from a scratch directory.
func checkoutArgs(root, cmd string) []string {
	args := strings.Fields(cmd)
	for i, a := range args {
		if strings.HasPrefix(a, "cmd/") || strings.HasPrefix(a, "server/") {
			args[i] = filepath.Join(root, a)
		}
	}
	return args
}
