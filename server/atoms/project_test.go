package atoms_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func exprJSON(t *testing.T, tmpl string) json.RawMessage {
	t.Helper()
	n, _ := boolexpr.TemplateAtoms(tmpl)
	e, err := boolexpr.FromTemplate(tmpl, n)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e)
	return b
}

// TestProjectAtomsSyncMergeSplitVariants runs the store side on a real
// Postgres: atoms shared by normalised text, a merge (labels combined, a
// conflicting label turned unsure), a split, atom labels, variants stored
// as queries of the project and their qrels derived from the atom labels.
func TestProjectAtomsSyncMergeSplitVariants(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "atoms")
	ids := storetest.Queries(t, st, p.ID, []store.QueryIn{
		{ExtID: "q1", Text: "Films set in Paris that are also comedy films", Template: boolexpr.TemplateAnd2,
			Atoms: []store.Atom{{Text: "Films set in Paris", End: 18}, {Text: "comedy films", Start: 33, End: 45}}, Expression: exprJSON(t, boolexpr.TemplateAnd2)},
		{ExtID: "q2", Text: "Comedy films that are not French films", Template: boolexpr.TemplateNot,
			Atoms: []store.Atom{{Text: "Comedy films", End: 12}, {Text: "French films", Start: 26, End: 38}}, Expression: exprJSON(t, boolexpr.TemplateNot)},
		{ExtID: "q3", Text: "Paris films", Template: boolexpr.TemplateSingle,
			Atoms: []store.Atom{{Text: "Paris films", End: 11}}, Expression: exprJSON(t, boolexpr.TemplateSingle)},
	})
	rep, err := atoms.Sync(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 3 || rep.Uses != 5 || rep.Linked != 5 || rep.Created != 4 {
		t.Fatalf("sync: %+v, want 3 queries, 5 uses, 5 linked, 4 atoms (comedy films shared)", rep)
	}
	// A second sync keeps everything.
	if rep, err = atoms.Sync(ctx, st, p.ID); err != nil || rep.Linked != 0 || rep.Created != 0 {
		t.Fatalf("second sync: %+v %v", rep, err)
	}
	links, err := st.AtomLinks(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int64{}
	for _, l := range links {
		byKey[l.Key] = l.AtomID
	}
	if links[1].AtomID != links[2].AtomID || links[1].Key != "comedy films" {
		t.Fatalf("q1 atom 1 and q2 atom 0 are not one atom: %+v", links)
	}
	// Labels on both Paris atoms, one conflicting.
	paris, parisFilms := byKey["films set in paris"], byKey["paris films"]
	if err := st.SetAtomLabels(ctx, p.ID, []store.AtomLabel{
		{AtomID: paris, DocExtID: "d1", Label: "yes"}, {AtomID: paris, DocExtID: "d2", Label: "yes"},
		{AtomID: parisFilms, DocExtID: "d2", Label: "no"}, {AtomID: parisFilms, DocExtID: "d3", Label: "yes"},
		{AtomID: byKey["comedy films"], DocExtID: "d1", Label: "yes"}, {AtomID: byKey["comedy films"], DocExtID: "d3", Label: "yes"},
		{AtomID: byKey["french films"], DocExtID: "d1", Label: "yes"}, {AtomID: byKey["french films"], DocExtID: "d3", Label: "no"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetAtomLabels(ctx, p.ID, []store.AtomLabel{{AtomID: paris, DocExtID: "d9", Label: "maybe"}}); err == nil {
		t.Fatal("label 'maybe' accepted")
	}
	conflicts, err := st.MergeAtoms(ctx, 0, p.ID, paris, parisFilms)
	if err != nil || conflicts != 1 {
		t.Fatalf("merge: %d conflicts, %v; want 1", conflicts, err)
	}
	labels, err := atoms.LoadLabels(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]boolexpr.Truth{"d1": boolexpr.True, "d2": boolexpr.Unknown, "d3": boolexpr.True}
	for d, w := range want {
		if got, _ := labels.Get("films set in paris", d); got != w {
			t.Errorf("merged label of %s: %v, want %v", d, got, w)
		}
	}
	// The merge survives a sync (q3's text is unchanged).
	if rep, err = atoms.Sync(ctx, st, p.ID); err != nil || rep.Linked != 0 {
		t.Fatalf("sync after merge: %+v %v", rep, err)
	}
	qs, err := atoms.LoadQueries(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if qs[2].Atoms[0] != "films set in paris" {
		t.Fatalf("q3 atom after merge: %q", qs[2].Atoms[0])
	}
	// Split q3's use off again.
	newID, err := st.SplitAtom(ctx, 0, p.ID, paris, []store.AtomUse{{QueryID: ids["q3"], AtomIndex: 0}}, "paris films", "Paris films")
	if err != nil || newID == 0 {
		t.Fatalf("split: %d %v", newID, err)
	}
	if _, err := st.SplitAtom(ctx, 0, p.ID, paris, []store.AtomUse{{QueryID: ids["q1"], AtomIndex: 0}}, "x", "x"); err == nil {
		t.Fatal("splitting off an atom's only use was accepted")
	}
	// Variants: q1 (A AND B) and q2 (A AND NOT B) get three each, q3 none.
	n, err := atoms.GenerateVariants(ctx, st, p.ID)
	if err != nil || n != 6 {
		t.Fatalf("variants: %d %v, want 6", n, err)
	}
	if n, err = atoms.GenerateVariants(ctx, st, p.ID); err != nil || n != 6 {
		t.Fatalf("variants again: %d %v, want 6 (updated in place)", n, err)
	}
	all, err := st.ListQueries(ctx, p.ID, "")
	if err != nil || len(all) != 9 {
		t.Fatalf("%d queries, %v; want 9", len(all), err)
	}
	v, err := st.QueryByID(ctx, mustID(t, all, "q2~B&!A"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Text != "French films that are not Comedy films" || v.Template != boolexpr.TemplateNot ||
		v.OriginalQuery != "<mark>French films</mark> that are not <mark>Comedy films</mark>" ||
		v.Text[v.Atoms[1].Start:v.Atoms[1].End] != "French films" || v.Text[v.Atoms[0].Start:v.Atoms[0].End] != "Comedy films" {
		t.Fatalf("variant: %+v", v)
	}
	// Derived qrels of the variants from the atom labels.
	qs, err = atoms.LoadQueries(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	labels, _ = atoms.LoadLabels(ctx, st, p.ID)
	got := map[string][]string{}
	for _, q := range qs {
		qr, err := atoms.DeriveQrels(q, labels, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range qr {
			if r.Relevant() {
				got[q.ID] = append(got[q.ID], r.Doc)
			}
		}
	}
	// comedy: d1 d3 yes; french: d1 yes, d3 no; paris (with the merged
	// labels, which stay with it after the split): d1 d3 yes, d2 unsure.
	for q, w := range map[string]string{"q1": "[d1 d3]", "q2": "[d3]", "q2~A&B": "[d1]", "q2~A|B": "[d1 d3]", "q2~B&!A": "[]", "q1~A|B": "[d1 d3]"} {
		if g := fmtList(got[q]); g != w {
			t.Errorf("%s derived relevant %s, want %s", q, g, w)
		}
	}
}

func fmtList(s []string) string { return "[" + strings.Join(s, " ") + "]" }

func mustID(t *testing.T, qs []store.Query, ext string) int64 {
	t.Helper()
	for _, q := range qs {
		if q.ExtID == ext {
			return q.ID
		}
	}
	t.Fatalf("no query %q", ext)
	return 0
}
