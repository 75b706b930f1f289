package atompool_test

import (
	"context"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/atompool"
	"boolpool/server/atoms"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestNextBatchLeavesVariantsOut: a atoms pool asks only for its
// split's source queries; variants derive their qrels from the same labels
// at no cost. d4 is in no run; "birds of Colombia" holds for it, which
// makes it a candidate of the variants using Colombia positively (q1~B&!A,
// q1~A&B, …) but not of q1 = Andes AND NOT Colombia: no pair about d4 is
// asked.
func TestNextBatchLeavesVariantsOut(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.NewWithRuns(t, st, 1)
	p := fx.Project.ID
	if _, err := atoms.Sync(ctx, st, p); err != nil {
		t.Fatal(err)
	}
	if n, err := atoms.GenerateVariants(ctx, st, p); err != nil || n == 0 {
		t.Fatalf("variants: %d %v", n, err)
	}
	colombia := atomID(t, st, p, "birds of Colombia")
	if err := st.SetAtomLabels(ctx, p, []store.AtomLabel{{AtomID: colombia, DocExtID: "d4", Label: "yes"}}); err != nil {
		t.Fatal(err)
	}
	batch, err := atompool.NextBatch(ctx, st, p, []string{"bm25", "dense"}, 3, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	// q1's candidates d1 d5 d2 d6 and q2's d5 d1 d6 d3, one atom each.
	if len(batch) != 8 {
		t.Errorf("%d pairs, want 8 (one per source query and candidate): %+v", len(batch), batch)
	}
	for _, it := range batch {
		if it.DocExtID == "d4" {
			t.Errorf("asked %+v: d4 is a candidate of variants only", it)
		}
	}
}

// atomID is the id of the project's atom of that text (fatal when none).
func atomID(t *testing.T, st *store.Store, projectID int64, text string) int64 {
	t.Helper()
	links, err := st.AtomLinks(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if l.AtomText == text {
			return l.AtomID
		}
	}
	t.Fatalf("no atom %q", text)
	return 0
}
