package decompose

import (
	"os"
	"testing"
)

func TestZZDeb(t *testing.T) {
	f, _ := os.Open("/work/shared/data/debquest/train.jsonl")
	items, _ := ReadQuest(f)
	for _, g := range items {
		r := Decompose(g.Query)
		ex, _ := AtomF1(r.Atoms, r.Expression, g.Atoms, g.Expr)
		if r.Template != g.Template || ex < 1 {
			t.Logf("%s\t%s\t%q\t%q", g.Template, r.Template, g.Query, r.Atoms)
		}
	}
}
