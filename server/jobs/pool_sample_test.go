package jobs_test

import (
	"context"
	"errors"
	"testing"

	"boolpool/server/apperr"
	"boolpool/server/atompool"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// TestPoolJobSample: the pool job (River's real client) publishes a sampled
// pool through pooling.Make: its result carries the design's totals, the
// design is stored (every unit an item of the pool with its inclusion
// probability), the judged document is the certainty stratum, and
// publishing created items only for drawn documents that had none. A bad
// sample spec is refused when submitted, naming the field.
func TestPoolJobSample(t *testing.T) {
	ctx := context.Background()
	st, fx := poolFixture(t)
	pid := fx.Project.ID
	// (q1, d1) judged already.
	rel, ev := int16(1), vocab.EvidencePartial
	if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-000000000001", ItemID: fx.Relevance[0],
		UserID: fx.Users["annotator1"].ID, ProjectID: pid, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev}); err != nil {
		t.Fatal(err)
	}
	had := map[[2]string]bool{}
	rows, err := st.Pool().Query(ctx, `SELECT q.ext_id, d.ext_id FROM items i JOIN queries q ON q.id = i.query_id
		JOIN documents d ON d.id = i.document_id WHERE i.project_id = $1 AND i.kind = 'relevance'`, pid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var q, d string
		if err := rows.Scan(&q, &d); err != nil {
			t.Fatal(err)
		}
		had[[2]string{q, d}] = true
	}
	rows.Close()
	before := poolCounts(t, st, pid)

	c := newClient(t, st, map[string]jobs.Kind{vocab.JobKindPool: jobs.Pool(st, atompool.NewPools(st, quietLog()), quietLog())}, 1)
	spec := jobs.PoolRequest{Name: "sampled", Runs: []string{"bm25", "dense"}, Strategy: vocab.StrategySample,
		Sample: &jobs.SampleSpec{Strata: []jobs.SampleStratum{{From: 1, To: 1, Rate: 1}, {From: 2, To: 3, Rate: 0.5}}}}
	pub, _ := publishPool(t, c, st, pid, spec, fx.Users["researcher"].ID)
	s := pub.Preview.Sample
	// q1: rank 1 {d6} (d1 judged), ranks 2-3 {d5, d2} at 0.5, judged {d1};
	// q2: rank 1 {d5, d6}, ranks 2-3 {d1, d3} at 0.5.
	if s == nil || s.Units != 6 || s.JudgedBefore != 1 || s.New != 5 || s.Expected != 5 || pub.Preview.Items != 6 || pub.Preview.Depth != 3 {
		t.Fatalf("published %+v sample %+v", pub, s)
	}
	design, err := st.PoolDesign(ctx, pub.PoolID)
	if err != nil || len(design) != 2 {
		t.Fatalf("design %+v (%v)", design, err)
	}
	created := 0
	for q, d := range design {
		for _, u := range d.Units {
			name := d.Strata[u.Stratum].Name
			if q == "q1" && u.Doc == "d1" {
				if name != "judged before" || u.Pi != 1 {
					t.Errorf("(q1, d1) in stratum %q with π %v, want judged before, 1", name, u.Pi)
				}
				continue
			}
			if !had[[2]string{q, u.Doc}] {
				created++
			}
		}
	}
	if pub.ItemsCreated != created {
		t.Errorf("%d items created, %d drawn documents had no item", pub.ItemsCreated, created)
	}
	after := poolCounts(t, st, pid)
	if after.Items != before.Items+created || after.Published != 1 {
		t.Errorf("counts %+v → %+v", before, after)
	}

	bad := spec
	bad.Name = "bad"
	bad.Sample = &jobs.SampleSpec{Strata: []jobs.SampleStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 20, Rate: 2}}}
	_, err = c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, bad), 0)
	var inv *apperr.Invalid
	if !errors.As(err, &inv) || inv.Field != "sample.strata[1].rate" {
		t.Errorf("bad rate: %v, want invalid sample.strata[1].rate", err)
	}
}
