package httpapi_test

import (
	"context"
	"testing"

	"boolpool/api"
	"boolpool/server/decompose"
)

// TestDecomposeAll: the editor's "decompose all" stores the decomposer's
// expressions for the queries that lack one, audited under the researcher;
// a dry run stores nothing; annotators may not.
func TestDecomposeAll(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	if _, err := e.st.Pool().Exec(ctx, `UPDATE queries SET expression = NULL, atoms = '[]' WHERE id = $1`, e.fx.Queries["q2"]); err != nil {
		t.Fatal(err)
	}
	u := e.login("researcher")
	var dry api.DecomposeSummary
	if st := u.do("POST", "/api/projects/fixture/decompose", api.DecomposeAllRequest{DryRun: true}, &dry); st != 200 {
		t.Fatalf("dry run: %d", st)
	}
	if dry.Queries != 2 || dry.Stored != 2 || !dry.DryRun {
		t.Errorf("dry run = %+v", dry)
	}
	var sum api.DecomposeSummary
	if st := u.do("POST", "/api/projects/fixture/decompose", api.DecomposeAllRequest{OnlyMissing: true}, &sum); st != 200 {
		t.Fatalf("decompose all: %d", st)
	}
	if sum.Stored != 1 || sum.Skipped != 1 || len(sum.ByTemplate) != 1 || len(sum.Failed) != 0 {
		t.Errorf("summary = %+v", sum)
	}
	q, err := e.st.QueryByID(ctx, e.fx.Queries["q2"])
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Atoms) == 0 || len(q.Expression) == 0 || string(q.Expression) == "null" {
		t.Errorf("q2 still has no expression: %+v", q)
	}
	// The list carries the decomposer's confidence for q2, whose
	// expression is now the decomposer's reading, and none for q1 (the
	// fixture's own expression).
	var qs []api.QueryExpression
	if st := u.do("GET", "/api/projects/fixture/queries", nil, &qs); st != 200 {
		t.Fatalf("queries: %d", st)
	}
	for _, x := range qs {
		want := x.ID == e.fx.Queries["q2"]
		if (x.Confidence != nil) != want {
			t.Errorf("%s: confidence %v, want present=%v", x.ExtID, x.Confidence, want)
		}
		if want && *x.Confidence != decompose.Decompose(q.Text).Confidence {
			t.Errorf("%s: confidence %v, want %v", x.ExtID, *x.Confidence, decompose.Decompose(q.Text).Confidence)
		}
	}
	if sum.ConfidenceThreshold != decompose.LowConfidence || sum.LowConfidence < 0 || sum.LowConfidence > sum.Stored {
		t.Errorf("low confidence %d of %d at %v", sum.LowConfidence, sum.Stored, sum.ConfidenceThreshold)
	}
	var n int
	if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log a JOIN users u ON u.id = a.user_id
		WHERE a.action = 'query.expression' AND u.username = 'researcher' AND a.detail->>'source' = 'decomposer'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("audit rows = %d (%v), want 1", n, err)
	}
	if st := u.do("POST", "/api/projects/nope/decompose", api.DecomposeAllRequest{}, nil); st != 404 {
		t.Errorf("unknown project: %d, want 404", st)
	}
	if st := u.do("POST", "/api/projects/fixture/decompose", map[string]any{"only_missing": "yes"}, nil); st != 400 {
		t.Errorf("bad body: %d, want 400", st)
	}
	a := e.login("annotator1")
	if st := a.do("POST", "/api/projects/fixture/decompose", api.DecomposeAllRequest{}, nil); st != 403 {
		t.Errorf("annotator: %d, want 403", st)
	}
}
