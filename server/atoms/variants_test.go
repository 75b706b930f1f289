package atoms_test

import (
	"boolpool/internal/debquesttest"
	"boolpool/server/atoms"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
)

// TestVariantsEveryTemplate lists the variants of every QUEST template.
func TestVariantsEveryTemplate(t *testing.T) {
	texts := []string{"board games", "Xlib programs", "editors"}
	want := map[string][]string{
		boolexpr.TemplateSingle: nil,
		boolexpr.TemplateOr2: {
			"_ that are also _: board games that are also Xlib programs",
			"_ that are not _: board games that are not Xlib programs",
			"_ that are not _: Xlib programs that are not board games",
		},
		boolexpr.TemplateAnd2: {
			"_ or _: board games or Xlib programs",
			"_ that are not _: board games that are not Xlib programs",
			"_ that are not _: Xlib programs that are not board games",
		},
		boolexpr.TemplateNot: {
			"_ or _: board games or Xlib programs",
			"_ that are also _: board games that are also Xlib programs",
			"_ that are not _: Xlib programs that are not board games",
		},
		boolexpr.TemplateOr3: {
			"_ that are also both _ and _: board games that are also both Xlib programs and editors",
			"_ that are also _ but not _: board games that are also Xlib programs but not editors",
			"_ that are also _ but not _: board games that are also editors but not Xlib programs",
			"_ that are also _ but not _: Xlib programs that are also editors but not board games",
		},
		boolexpr.TemplateAnd3: {
			"_ or _ or _: board games or Xlib programs or editors",
			"_ that are also _ but not _: board games that are also Xlib programs but not editors",
			"_ that are also _ but not _: board games that are also editors but not Xlib programs",
			"_ that are also _ but not _: Xlib programs that are also editors but not board games",
		},
		boolexpr.TemplateAndNot: {
			"_ or _ or _: board games or Xlib programs or editors",
			"_ that are also both _ and _: board games that are also both Xlib programs and editors",
			"_ that are also _ but not _: board games that are also editors but not Xlib programs",
			"_ that are also _ but not _: Xlib programs that are also editors but not board games",
		},
	}
	for _, tmpl := range boolexpr.Templates() {
		n, _ := boolexpr.TemplateAtoms(tmpl)
		e, _ := boolexpr.FromTemplate(tmpl, n)
		vs, err := atoms.Variants(e, texts[:n])
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.Template+": "+v.Text)
			if want := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(v.Marked); want != v.Text {
				t.Errorf("%q: marked %q does not match text %q", tmpl, v.Marked, v.Text)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want[tmpl]) {
			t.Errorf("%q variants:\n got %q\nwant %q", tmpl, got, want[tmpl])
		}
	}
	if _, err := atoms.Variants(boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(2)), texts); err == nil {
		t.Error("an expression skipping atom 1 was accepted")
	}
}

// setAlgebra returns the documents of e by boolexpr's set evaluation over
// the oracle's atom sets (a reference independent of Derive's per-document
// three-valued evaluation).
func setAlgebra(t *testing.T, e *boolexpr.Expr, keys []string, o atoms.Oracle) []string {
	t.Helper()
	sets := make([]map[string]bool, len(keys))
	for i, k := range keys {
		sets[i] = o[k]
		if sets[i] == nil {
			sets[i] = map[string]bool{}
		}
	}
	s, err := e.Eval(sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(s))
}

// derivedRelevant returns the documents whose derived label is True, over
// every document labelled for one of q's atoms (closed world).
func derivedRelevant(t *testing.T, q atoms.Query, l atoms.Labels) []string {
	t.Helper()
	qr, err := atoms.DeriveQrels(q, l, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range qr {
		if r.Label == boolexpr.Unknown {
			t.Fatalf("%s %s: unknown under a closed-world oracle", q.ID, r.Doc)
		}
		if r.Relevant() {
			out = append(out, r.Doc)
		}
	}
	return out
}

// TestVariantsDerivedQrelsFixture: on a hand-made oracle, every template's
// variants get derived qrels equal to the set algebra, and a few are
// checked by hand.
func TestVariantsDerivedQrelsFixture(t *testing.T) {
	o, err := atoms.ReadOracle(strings.NewReader(strings.Join([]string{
		"Board games\tchess\t1", "Board games\tgo\t1", "Board games\txvier\t1", "Board games\tpoker\t0",
		"Xlib programs\txvier\t1", "Xlib programs\txterm\t1", "Xlib programs\tgo\t1",
		"editors\txterm\t1", "editors\tvim\t1", "editors\tgo\t1",
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"board games", "xlib programs", "editors"}
	l := o.Labels()
	hand := map[string]string{
		"_ that are also _/A&!B":                "[chess]", // board games, not Xlib
		"_ that are also _/B&!A":                "[xterm]", // Xlib, not board games
		"_ that are also _/A|B":                 "[chess go xterm xvier]",
		"_ that are also both _ and _/(A&C)&!B": "[]", // board games that are editors but not Xlib: go is Xlib
		"_ that are also both _ and _/(B&C)&!A": "[xterm]",
		"_ that are also both _ and _/(A&B)&!C": "[xvier]",
		"_ that are also both _ and _/A|B|C":    "[chess go vim xterm xvier]",
	}
	checked := 0
	for _, tmpl := range boolexpr.Templates() {
		n, _ := boolexpr.TemplateAtoms(tmpl)
		e, _ := boolexpr.FromTemplate(tmpl, n)
		src := atoms.Query{ID: tmpl, Expr: e, Atoms: keys[:n]}
		if got, want := derivedRelevant(t, src, l), setAlgebra(t, e, keys[:n], o); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: derived %v, set algebra %v", tmpl, got, want)
		}
		vs, err := atoms.Variants(e, keys[:n])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			q := atoms.Query{ID: tmpl + "/" + v.Code(), Expr: v.Expr, Atoms: keys[:n]}
			got, want := derivedRelevant(t, q, l), setAlgebra(t, v.Expr, keys[:n], o)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: derived %v, set algebra %v", q.ID, got, want)
			}
			if h, ok := hand[q.ID]; ok {
				checked++
				if g := "[" + strings.Join(got, " ") + "]"; g != h {
					t.Errorf("%s: derived %s, by hand %s", q.ID, g, h)
				}
			}
		}
	}
	if checked != len(hand) {
		t.Errorf("checked %d hand-computed variants, want %d", checked, len(hand))
	}
}

// TestVariantsDebQUESTVal generates the variants of every DebQUEST val
// query and checks that their derived qrels (and the source's) equal the
// set algebra over the atom oracle, and the sources' equal the gold.
func TestVariantsDebQUESTVal(t *testing.T) {
	qs, o := debquesttest.LoadVal(t)
	if len(qs) != 238 {
		t.Fatalf("%d val queries, want 238", len(qs))
	}
	l := o.Labels()
	variants, withVariants, relevant := 0, 0, 0
	for _, q := range qs {
		for _, k := range q.Atoms {
			if len(o[k]) == 0 {
				t.Fatalf("%s: atom %q is not in the oracle", q.ID, k)
			}
		}
		if got := derivedRelevant(t, q.Query, l); fmt.Sprint(got) != fmt.Sprint(q.Gold) {
			t.Errorf("%s: derived %v, gold %v", q.ID, got, q.Gold)
		}
		vs, err := atoms.Variants(q.Expr, q.Texts)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		if len(vs) > 0 {
			withVariants++
		}
		for _, v := range vs {
			vq := atoms.Query{ID: q.ID + "~" + v.Code(), Expr: v.Expr, Atoms: q.Atoms}
			got, want := derivedRelevant(t, vq, l), setAlgebra(t, v.Expr, q.Atoms, o)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: derived %d docs, set algebra %d", vq.ID, len(got), len(want))
			}
			variants++
			relevant += len(got)
		}
	}
	// 34 single-atom queries have no variant; every other one has 3 or 4.
	if withVariants != 238-34 {
		t.Errorf("%d queries with variants, want %d", withVariants, 238-34)
	}
	t.Logf("%d val queries: %d variants generated for %d of them, %d derived relevant pairs, all equal to the set algebra", len(qs), variants, withVariants, relevant)
}
