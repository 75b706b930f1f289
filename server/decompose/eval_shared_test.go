package decompose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuestTrainAccuracy(t *testing.T) {
	dir := os.Getenv("BOOLPOOL_SHARED_DATA")
	if dir == "" {
		t.Skip("BOOLPOOL_SHARED_DATA not set; skipping the decomposer evaluation on QUEST train")
	}
	f, err := os.Open(filepath.Join(dir, "quest", "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := ReadQuest(f)
	if err != nil {
		t.Fatal(err)
	}
	rep := Evaluate(items)
	var b strings.Builder
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("QUEST train decomposition:\n%s", b.String())
	if os.Getenv("DECOMPOSE_DUMP") != "" {
		for _, g := range items {
			r := Decompose(g.Query)
			ex, tok := AtomF1(r.Atoms, r.Expression, g.Atoms, g.Expr)
			t.Logf("DUMP\t%s\t%s\t%.2f\t%.2f\t%s\t%q\t%q", g.Template, r.Template, ex, tok, g.Query, g.Atoms, r.Atoms)
		}
	}
}
