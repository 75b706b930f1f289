package export_test

import (
	"context"
	"encoding/json"
	"testing"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

// atomLabel is one label of the fixture's atoms: atom "games" or "xlib",
// a document ext id, and yes / no / unsure.
type atomLabel struct{ atom, doc, label string }

// gamesXlibProject creates the derived-qrels tests' project name: query
// q1 = "board games" AND "Xlib programs" (and what more adds in the same
// import), its atoms synced and labelled with labels. It returns the
// project's id.
func gamesXlibProject(t *testing.T, st *store.Store, name string, more func(im *store.Importer, q1 int64) error, labels ...atomLabel) int64 {
	t.Helper()
	ctx := context.Background()
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	and, _ := boolexpr.FromTemplate(boolexpr.TemplateAnd2, 2)
	ej, _ := json.Marshal(and)
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		q1, err := im.Query(ctx, store.QueryIn{ExtID: "q1", Text: "board games that are also Xlib programs", Template: boolexpr.TemplateAnd2,
			OriginalQuery: "<mark>board games</mark> that are also <mark>Xlib programs</mark>",
			Atoms:         []store.Atom{{Text: "board games", End: 11}, {Text: "Xlib programs", Start: 26, End: 39}}, Expression: ej})
		if err != nil || more == nil {
			return err
		}
		return more(im, q1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := atoms.Sync(ctx, st, p.ID); err != nil {
		t.Fatal(err)
	}
	links, err := st.AtomLinks(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{"games": links[0].AtomID, "xlib": links[1].AtomID}
	var ls []store.AtomLabel
	for _, l := range labels {
		ls = append(ls, store.AtomLabel{AtomID: ids[l.atom], DocExtID: l.doc, Label: l.label})
	}
	if err := st.SetAtomLabels(ctx, p.ID, ls); err != nil {
		t.Fatal(err)
	}
	return p.ID
}
