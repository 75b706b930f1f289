package decompose

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
)

// cvFixture is 10 queries of "_" and 5 of "_ or _".
func cvFixture(t *testing.T) []Gold {
	var items []Gold
	for i := 0; i < 10; i++ {
		q, err := boolexpr.QueryFromQuest(fmt.Sprintf("<mark>Trees of Place%d</mark>", i), boolexpr.TemplateSingle)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, Gold{Query: fmt.Sprintf("Trees of Place%d", i), Template: q.Template, Atoms: q.Atoms, Expr: q.Expr})
	}
	for i := 0; i < 5; i++ {
		q, err := boolexpr.QueryFromQuest(fmt.Sprintf("<mark>Birds of Land%d</mark> or <mark>Birds of Isle%d</mark>", i, i), boolexpr.TemplateOr2)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, Gold{Query: fmt.Sprintf("Birds of Land%d or Isle%d", i, i), Template: q.Template, Atoms: q.Atoms, Expr: q.Expr})
	}
	return items
}

// TestDecomposeSplitHeldOutStratified: 20 % of each template is held out
// (2 of 10, 1 of 5), the parts are disjoint and cover the items, and the
// split does not depend on the items' order.
func TestDecomposeSplitHeldOutStratified(t *testing.T) {
	items := cvFixture(t)
	train, held := SplitHeldOut(items, 20)
	count := map[string]int{}
	seen := map[string]bool{}
	for _, g := range held {
		count[g.Template]++
		seen[g.Query] = true
	}
	if count[boolexpr.TemplateSingle] != 2 || count[boolexpr.TemplateOr2] != 1 || len(held) != 3 {
		t.Errorf("held out %v (%d items), want 2 of \"_\" and 1 of \"_ or _\"", count, len(held))
	}
	for _, g := range train {
		if seen[g.Query] {
			t.Errorf("%q both trained on and held out", g.Query)
		}
	}
	if len(train)+len(held) != len(items) {
		t.Errorf("%d + %d items, want %d", len(train), len(held), len(items))
	}
	rev := make([]Gold, len(items))
	for i, g := range items {
		rev[len(items)-1-i] = g
	}
	_, held2 := SplitHeldOut(rev, 20)
	if queries(held) != queries(held2) {
		t.Errorf("split depends on order: %s vs %s", queries(held), queries(held2))
	}
}

func queries(gs []Gold) string {
	var qs []string
	for _, g := range gs {
		qs = append(qs, g.Query)
	}
	return strings.Join(qs, "|")
}

// TestDecomposeStratifiedFolds: 5 folds of 15 items take 3 each, 2 of "_"
// and 1 of "_ or _", and together hold every item once.
func TestDecomposeStratifiedFolds(t *testing.T) {
	items := cvFixture(t)
	folds := StratifiedFolds(items, 5)
	seen := map[string]int{}
	for f, fold := range folds {
		n := map[string]int{}
		for _, g := range fold {
			n[g.Template]++
			seen[g.Query]++
		}
		if n[boolexpr.TemplateSingle] != 2 || n[boolexpr.TemplateOr2] != 1 {
			t.Errorf("fold %d: %v, want 2 of \"_\" and 1 of \"_ or _\"", f, n)
		}
	}
	if len(seen) != len(items) {
		t.Errorf("folds hold %d distinct items, want %d", len(seen), len(items))
	}
	for q, n := range seen {
		if n != 1 {
			t.Errorf("%q in %d folds", q, n)
		}
	}
}

// TestDecomposeCrossValidate: every fixture item is scored once, by a
// model trained without it; the fixture is easy, so all templates are
// right.
func TestDecomposeCrossValidate(t *testing.T) {
	items := cvFixture(t)
	rep, err := CrossValidate(items, nil, 5, TrainOptions{MinCount: 1, Lexicon: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.N != len(items) || rep.TemplateCorrect != len(items) {
		t.Errorf("cross-validation scored %d items, %d right; want %d, all right", rep.N, rep.TemplateCorrect, len(items))
	}
	if _, err := CrossValidate(items, nil, 1, TrainOptions{}); err == nil {
		t.Error("k=1 accepted")
	}
}

// TestDecomposeWilson checks the interval against known values: 50 of 100
// gives [0.4038, 0.5962]; 0 of 10 gives [0, 0.2775].
func TestDecomposeWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{50, 100, 0.4038, 0.5962}, {0, 10, 0, 0.2775}} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestDecomposeLexiconFeatures: with "# films" and "sexploitation films"
// known, "2001 sexploitation films" is an unknown category whose two
// pieces (year, modifier) are both known; "1992 drama films" itself is
// known.
func TestDecomposeLexiconFeatures(t *testing.T) {
	known := map[string]bool{lexKey("2001 films"): true, lexKey("Sexploitation films"): true, lexKey("1990s drama films"): true}
	for _, c := range []struct{ atom, want string }{
		{"2001 sexploitation films", "0|2/2"},
		{"1992 drama films", "1|1/2"},
		{"Sexploitation films from 2001", "0|2/2"},
		{"Pleistocene animals", "0|0/1"},
	} {
		if got, _ := atomLexShape(c.atom, func(k string) bool { return known[k] }); got != c.want {
			t.Errorf("%q: lexicon shape %q, want %q", c.atom, got, c.want)
		}
	}
	fs := lexiconFeatures(prepare("Sexploitation films"), func(k string) bool { return known[k] })
	if strings.Join(fs, " ") != "lx=p|1|1/1 rt|lx=_|p|1|1/1 lxn=1/1 rt|lxn=_|1/1" {
		t.Errorf("lexiconFeatures = %q", fs)
	}
	if lexKey("1990's Drama Films") != "# drama film" {
		t.Errorf("lexKey = %q", lexKey("1990's Drama Films"))
	}
}
