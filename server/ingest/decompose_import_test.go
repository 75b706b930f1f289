package ingest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/server/decompose"
	"boolpool/server/ingest"
)

// Importing queries of a format without Boolean structure stores the
// decomposer's expressions (and says how many); --no-decompose leaves
// them without; queries that have one keep it.
func TestImportDecomposesQueriesWithoutStructure(t *testing.T) {
	ctx := context.Background()
	pairs := `{"id": "n1", "q1": "Which bridge survived the storm?", "q2": "Which bridge did not survive the storm?", "doc1": "The bridge survived.", "doc2": "The bridge did not survive."}
{"id": "n2", "q1": "birds of Peru", "q2": "birds of Peru that are not parrots", "doc1": "A condor.", "doc2": "A macaw."}
`
	for _, tc := range []struct {
		name      string
		opt       ingest.Options
		wantExprs bool
	}{
		{"default", ingest.Options{}, true},
		{"no-decompose", ingest.Options{NoDecompose: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, pid := newProject(t)
			path := writeFile(t, "pairs.jsonl", pairs)
			res, err := ingest.Files(ctx, st, pid, "nevir", []string{path}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			qs, err := st.ListQueries(ctx, pid, "")
			if err != nil {
				t.Fatal(err)
			}
			with := 0
			for _, q := range qs {
				if decompose.HasExpression(q) {
					with++
				}
			}
			last := res[len(res)-1]
			if tc.wantExprs {
				if with != len(qs) || last.Decomposed != len(qs) || len(last.Notes) == 0 || !strings.HasPrefix(last.Notes[0], "decomposer: 4 queries got an expression") {
					t.Errorf("%d of %d queries have an expression, Decomposed %d, notes %q", with, len(qs), last.Decomposed, last.Notes)
				}
				// The note says how many readings the decomposer doubts.
				low := 0
				for _, q := range qs {
					if decompose.Decompose(q.Text).Confidence < decompose.LowConfidence {
						low++
					}
				}
				if want := fmt.Sprintf("; %d of the 4 below confidence %.2f", low, decompose.LowConfidence); len(last.Notes) == 0 || !strings.Contains(last.Notes[0], want) {
					t.Errorf("notes %q lack %q", last.Notes, want)
				}
				// Re-importing the file (which stores the queries afresh)
				// leaves them with expressions again.
				if _, err := ingest.Files(ctx, st, pid, "nevir", []string{path}, tc.opt); err != nil {
					t.Fatal(err)
				}
				qs, err := st.ListQueries(ctx, pid, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range qs {
					if !decompose.HasExpression(q) {
						t.Errorf("after re-import query %s has no expression", q.ExtID)
					}
				}
				return
			}
			if with != 0 || last.Decomposed != 0 {
				t.Errorf("with NoDecompose %d queries got an expression", with)
			}
		})
	}
}
