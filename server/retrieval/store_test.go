package retrieval

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestStoredPipeline: index built from Postgres, persisted, reused while
// the corpus is unchanged and rebuilt when it changes; runs saved and loaded
// back identically; RRF over stored runs; logic probes.
func TestStoredPipeline(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := st.EnsureProject(ctx, "fruit")
	if err != nil {
		t.Fatal(err)
	}
	expr, _ := json.Marshal(notRed.Expr)
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for id, text := range denseDocs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Body: text}); err != nil {
				return err
			}
		}
		_, err := im.Query(ctx, store.QueryIn{ExtID: "q1", Text: notRed.Text, Split: "val",
			Atoms: []store.Atom{{Text: "apple fruit"}, {Text: "red"}}, Expression: expr})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := LoadLexical(ctx, st, p.ID, log)
	if err != nil {
		t.Fatal(err)
	}
	if ix.NumDocs() != len(denseDocs) {
		t.Fatalf("indexed %d docs", ix.NumDocs())
	}
	info, err := st.LexicalIndexInfo(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadLexical(ctx, st, p.ID, log)
	if err != nil {
		t.Fatal(err)
	}
	if info2, _ := st.LexicalIndexInfo(ctx, p.ID); !info2.BuiltAt.Equal(info.BuiltAt) || again.NumTerms() != ix.NumTerms() {
		t.Fatal("an unchanged corpus rebuilt the index")
	}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		return im.Document(ctx, store.DocumentIn{ExtID: "d9", Body: "green green fruit"})
	})
	if err != nil {
		t.Fatal(err)
	}
	ix, err = LoadLexical(ctx, st, p.ID, log)
	if err != nil {
		t.Fatal(err)
	}
	if ix.NumDocs() != len(denseDocs)+1 {
		t.Fatal("a changed corpus did not rebuild the index")
	}

	qs, err := LoadQueries(ctx, st, p.ID, "val")
	if err != nil || len(qs) != 1 || !boolexpr.Equal(qs[0].Expr, notRed.Expr) || qs[0].Atoms[1] != "red" {
		t.Fatalf("queries %+v, %v", qs, err)
	}
	runs := map[string]map[string][]Result{}
	for _, name := range []string{"bm25", "sparse-disentangled-negation"} {
		res, err := RunAll(ctx, mustNew(t, name, nil, Deps{Lexical: ix}), qs, 5, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := SaveRun(ctx, st, p.ID, name, name, nil, qs, res); err != nil {
			t.Fatal(err)
		}
		back, err := LoadRun(ctx, st, p.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, res) {
			t.Fatalf("%s: stored %v, loaded %v", name, res, back)
		}
		runs[name] = back
	}
	fused := retrieve(t, mustNew(t, "rrf", map[string]string{"runs": "bm25,sparse-disentangled-negation"}, Deps{Runs: runs}), qs[0])
	want := RRF([][]Result{runs["bm25"]["q1"], runs["sparse-disentangled-negation"]["q1"]}, 60, 0)
	if !reflect.DeepEqual(fused, want) {
		t.Fatalf("rrf %v, want %v", fused, want)
	}
	list, err := st.ListRuns(ctx, p.ID)
	if err != nil || len(list) != 2 || list[0].Results != len(runs["bm25"]["q1"]) {
		t.Fatalf("ListRuns %+v %v", list, err)
	}

	probes := LogicProbes(ix, qs[0], 3)
	if len(probes) != 2 || probes[0].Label != "not:1" || probes[1].Label != "and-atom:0" {
		t.Fatalf("probes %+v", probes)
	}
	if probes[0].Docs[0] != "d6" {
		t.Errorf("top of the negated atom 'red' = %v, want d6", probes[0].Docs)
	}
}
