package demo

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"testing"

	"boolpool/server/store/storetest"
)

// TestVendoredData pins the document count Load relies on to stay fast.
func TestVendoredData(t *testing.T) {
	b, err := dataFS.ReadFile("data/documents.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 5<<20 {
		t.Fatalf("demo documents are %d bytes compressed; the budget is 5 MB", len(b))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte("\n")); n != demoDocuments {
		t.Fatalf("data/documents.jsonl.gz has %d documents, demoDocuments says %d", n, demoDocuments)
	}
}

func TestLoadIsCompleteAndIdempotent(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	first, err := Load(ctx, st, log)
	if err != nil {
		t.Fatal(err)
	}
	_, wantQueries, _ := dataCounts()
	if !first.Imported || first.Documents != demoDocuments || first.Queries != wantQueries {
		t.Fatalf("first load = %+v", first)
	}
	if first.Items < 100 {
		t.Fatalf("demo has %d items to judge, want a pool's worth", first.Items)
	}
	if len(first.Users) != 5 {
		t.Fatalf("users = %v", first.Users)
	}
	// Defect 6: publishing made no gold items (the rate was typed integer).
	// The demo's queries carry gold answer sets, so about gold_rate of the
	// items whose query has gold qrels must be gold.
	var eligible, gold int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM qrels r WHERE r.query_id = i.query_id AND r.source = 'gold')),
		count(*) FILTER (WHERE i.is_gold) FROM items i WHERE i.kind = 'relevance'`).Scan(&eligible, &gold); err != nil {
		t.Fatal(err)
	}
	if eligible == 0 || gold == 0 || float64(gold) < 0.05*float64(eligible) || float64(gold) > 0.15*float64(eligible) {
		t.Errorf("demo: %d gold items of %d eligible, want about 10%%", gold, eligible)
	}
	t.Logf("demo: %d gold items of %d eligible", gold, eligible)
	second, err := Load(ctx, st, log)
	if err != nil {
		t.Fatal(err)
	}
	if second.Imported || second.Items != first.Items || second.Documents != first.Documents {
		t.Fatalf("second load = %+v, first %+v", second, first)
	}
	u, err := st.UserByUsername(ctx, "annotator1")
	if err != nil || u.Role != "annotator" {
		t.Fatalf("annotator1 = %+v, %v", u, err)
	}
}
