package decompose_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/decompose"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestStoreProjectExpressions: the decomposer's expressions are stored
// for a project's queries (dry run first: nothing stored), audited, with
// the per-template summary and the failures; --only-missing leaves a
// query that has an expression alone; a split limits the queries.
func TestStoreProjectExpressions(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "dec")
	kept, _ := json.Marshal(boolexpr.Atom(0))
	storetest.Queries(t, st, p.ID, []store.QueryIn{
		{ExtID: "neg", Text: "birds of the Andes but not of Colombia", Split: "test"},
		{ExtID: "or", Text: "Novels or short stories", Split: "test"},
		{ExtID: "or2", Text: "cats or dogs", Split: "test"},
		{ExtID: "blank", Text: "   ", Split: "test"},
		{ExtID: "kept", Text: "hand made", Split: "test", Template: "_", Atoms: []store.Atom{{Text: "hand made", End: 9}}, Expression: kept},
		{ExtID: "other", Text: "red or blue", Split: "train"},
	})
	opts := decompose.StoreOptions{Split: "test", OnlyMissing: true, DryRun: true}
	dry, err := decompose.StoreProjectExpressions(ctx, st, p.ID, opts)
	if err != nil {
		t.Fatal(err)
	}
	if dry.Queries != 5 || dry.Stored != 3 || dry.Skipped != 1 || len(dry.Failed) != 1 || dry.Failed[0].ExtID != "blank" || !dry.DryRun {
		t.Fatalf("dry run summary %+v", dry)
	}
	byID := func() map[string]store.Query {
		qs, err := st.ListQueries(ctx, p.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Query{}
		for _, q := range qs {
			out[q.ExtID] = q
		}
		return out
	}
	if decompose.HasExpression(byID()["neg"]) {
		t.Fatal("the dry run stored an expression")
	}

	opts.DryRun = false
	sum, err := decompose.StoreProjectExpressions(ctx, st, p.ID, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []decompose.TemplateCount{{Template: boolexpr.TemplateOr2, Queries: 2}, {Template: boolexpr.TemplateNot, Queries: 1}}
	if sum.Stored != 3 || len(sum.ByTemplate) != 2 || sum.ByTemplate[0] != want[0] || sum.ByTemplate[1] != want[1] {
		t.Fatalf("summary %+v, want by template %+v", sum, want)
	}
	qs := byID()
	low := 0
	for _, id := range []string{"neg", "or", "or2"} {
		r := decompose.Decompose(qs[id].Text)
		if r.Confidence < decompose.LowConfidence {
			low++
		}
		// The stored expression is the decomposer's reading: its
		// confidence is known.
		if c, ok := decompose.StoredConfidence(qs[id]); !ok || c != r.Confidence {
			t.Errorf("%s: StoredConfidence = %v, %v; want %v, true", id, c, ok, r.Confidence)
		}
	}
	if sum.LowConfidence != low || sum.ConfidenceThreshold != decompose.LowConfidence {
		t.Errorf("low confidence %d (threshold %v), want %d (%v)", sum.LowConfidence, sum.ConfidenceThreshold, low, decompose.LowConfidence)
	}
	// An imported expression is not the decomposer's: no confidence.
	if _, ok := decompose.StoredConfidence(qs["kept"]); ok {
		t.Error("StoredConfidence of an imported expression reported ok")
	}
	neg := qs["neg"]
	e, err := boolexpr.ParseJSON(neg.Expression, len(neg.Atoms))
	if err != nil || neg.Template != boolexpr.TemplateNot || e.Op != boolexpr.OpAnd {
		t.Fatalf("stored %s %q %+v: %v", neg.Expression, neg.Template, neg.Atoms, err)
	}
	if a := qs["or2"].Atoms; len(a) != 2 || !strings.EqualFold(a[0].Text, "cats") || a[0].Start != 0 || a[0].End != 4 || a[1].Start != 8 {
		t.Errorf("atom spans %+v", a)
	}
	if k := qs["kept"]; k.Template != "_" || len(k.Atoms) != 1 || k.Atoms[0].Text != "hand made" || decompose.HasExpression(qs["other"]) {
		t.Errorf("only-missing / split not honoured: kept %s, other %s", qs["kept"].Expression, qs["other"].Expression)
	}
	var audited int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'query.expression'
		AND project_id = $1 AND detail->>'source' = 'decomposer'`, p.ID).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited != 3 {
		t.Errorf("%d audit rows, want 3", audited)
	}
	// Again with only-missing: nothing left to do.
	again, err := decompose.StoreProjectExpressions(ctx, st, p.ID, opts)
	if err != nil || again.Stored != 0 || again.Skipped != 4 {
		t.Fatalf("second run %+v %v", again, err)
	}
}
