package live_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"boolpool/server/ingest"
	"boolpool/server/live"
	"boolpool/server/store/storetest"
)

// TestLoadDataFindsNevIRPairs: pairs imported with the nevir format reach
// the live data as (query, query, document, document).
func TestLoadDataFindsNevIRPairs(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "nevir")
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	pairs := `{"id": "p1", "q1": "drugs that treat pain", "q2": "drugs that do not treat pain", "doc1": "Aspirin treats pain.", "doc2": "Salt does not treat pain."}
{"id": "p2", "q1": "birds that fly", "q2": "birds that do not fly", "doc1": "Swallows fly.", "doc2": "Penguins do not fly."}
`
	if err := os.WriteFile(path, []byte(pairs), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "nevir", []string{path}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	d, err := live.LoadData(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.NevIRPairs) != 2 {
		t.Fatalf("pairs %+v", d.NevIRPairs)
	}
	ext := map[int64]string{}
	for _, q := range d.Queries {
		ext[q.ID] = q.ExtID
	}
	got := d.NevIRPairs[1]
	if ext[got.Q1] != "p2-q1" || ext[got.Q2] != "p2-q2" || got.Doc1 != "p2-doc1" || got.Doc2 != "p2-doc2" {
		t.Fatalf("pair %+v (%s, %s)", got, ext[got.Q1], ext[got.Q2])
	}
}
