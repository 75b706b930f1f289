package store_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestPoolDesignRoundTrip: a sampled pool saved with SaveNewPool (items
// with inclusion probabilities and strata, the strata of each query)
// reads back as the same design; items without a design are not units;
// saving the draft again as a plain pool removes the design; SampledPools
// lists only sampled pools; JudgedDocuments holds the documents with a
// current relevance judgment.
func TestPoolDesignRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	pid := fx.Project.ID
	q1, q2 := fx.Queries["q1"], fx.Queries["q2"]
	strata := []store.PoolStratumIn{
		{QueryID: q1, Stratum: 0, Name: "judged before", Population: 1, Sampled: 1},
		{QueryID: q1, Stratum: 1, Name: "ranks 1-10", Population: 3, Sampled: 3},
		{QueryID: q1, Stratum: 2, Name: "ranks 11-100", Population: 4, Sampled: 2},
		{QueryID: q2, Stratum: 0, Name: "ranks 1-10", Population: 2, Sampled: 1},
	}
	items := []store.PoolItemIn{
		{QueryID: q1, DocExtID: "d1", Priority: 0, Origin: "sample", Inclusion: 1, Stratum: 0},
		{QueryID: q1, DocExtID: "d3", Priority: 1, Origin: "sample", Inclusion: 1, Stratum: 1, Sources: map[string]int{"bm25": 2}},
		{QueryID: q1, DocExtID: "d2", Priority: 2, Origin: "sample", Inclusion: 1, Stratum: 1},
		{QueryID: q1, DocExtID: "d4", Priority: 3, Origin: "sample", Inclusion: 1, Stratum: 1},
		{QueryID: q1, DocExtID: "d6", Priority: 4, Origin: "sample", Inclusion: 0.5, Stratum: 2},
		{QueryID: q1, DocExtID: "d5", Priority: 5, Origin: "sample", Inclusion: 0.5, Stratum: 2},
		{QueryID: q2, DocExtID: "d5", Priority: 0, Origin: "sample", Inclusion: 0.5, Stratum: 0},
	}
	params, _ := json.Marshal(map[string]any{"strategy": "sample"})
	saved, err := st.SaveNewPool(ctx, store.NewPool{ProjectID: pid, Name: "s1", Strategy: "sample", Depth: 100, Params: params, Items: items, Strata: strata})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.PoolDesign(ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	str := func(name string, pop, n int) store.PoolStratum {
		return store.PoolStratum{Name: name, Population: pop, Sampled: n}
	}
	unit := func(doc string, h int, pi float64) store.PoolUnit {
		return store.PoolUnit{Doc: doc, Stratum: h, Pi: pi}
	}
	want := map[string]store.PoolDesignQuery{
		"q1": {Query: "q1", Strata: []store.PoolStratum{str("judged before", 1, 1), str("ranks 1-10", 3, 3), str("ranks 11-100", 4, 2)},
			Units: []store.PoolUnit{unit("d1", 0, 1), unit("d3", 1, 1), unit("d2", 1, 1), unit("d4", 1, 1), unit("d6", 2, 0.5), unit("d5", 2, 0.5)}},
		"q2": {Query: "q2", Strata: []store.PoolStratum{str("ranks 1-10", 2, 1)}, Units: []store.PoolUnit{unit("d5", 0, 0.5)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("design\n got %+v\nwant %+v", got, want)
	}
	pi, err := st.PoolItems(ctx, saved.ID)
	if err != nil || len(pi) != len(items) || pi[4].DocExtID != "d6" || pi[4].Inclusion != 0.5 || pi[4].Stratum != 2 || pi[4].Origin != "sample" {
		t.Fatalf("pool items %+v (%v)", pi, err)
	}
	// A stratum outside (0, 1] is refused by the schema.
	bad := append([]store.PoolItemIn(nil), items...)
	bad[0].Inclusion = 1.5
	if _, err := st.SaveNewPool(ctx, store.NewPool{ProjectID: pid, Name: "s2", Strategy: "sample", Depth: 100, Items: bad, Strata: strata}); err == nil {
		t.Error("an inclusion probability of 1.5 was stored")
	}
	// A plain pool has no design.
	plain, err := st.SaveNewPool(ctx, store.NewPool{ProjectID: pid, Name: "d", Strategy: "depth", Depth: 2,
		Items: []store.PoolItemIn{{QueryID: q1, DocExtID: "d1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := st.PoolDesign(ctx, plain.ID); err != nil || len(d) != 0 {
		t.Fatalf("plain pool's design %+v (%v)", d, err)
	}
	sp, err := st.SampledPools(ctx, pid)
	if err != nil || len(sp) != 1 || sp[0].ID != saved.ID || sp[0].Items != len(items) {
		t.Fatalf("sampled pools %+v (%v)", sp, err)
	}
	// The draft replaced by a plain pool keeps no strata.
	if _, err := st.SaveNewPool(ctx, store.NewPool{ProjectID: pid, Name: "s1", Strategy: "depth", Depth: 2,
		Items: []store.PoolItemIn{{QueryID: q1, DocExtID: "d1"}}}); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pool_strata WHERE pool_id = $1`, saved.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d strata left after replacing the draft (%v)", left, err)
	}
	if sp, err := st.SampledPools(ctx, pid); err != nil || len(sp) != 0 {
		t.Fatalf("sampled pools after the replace %+v (%v)", sp, err)
	}

	// Judged documents: a current relevance judgment counts, a skip does not.
	rel := int16(2)
	ev := api.EvidencePartial
	judge := func(n string, item int64, user string, relevance *int16, skip string) {
		t.Helper()
		_, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-00000000000" + n, ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: pid, Kind: api.KindRelevance, Relevance: relevance, Evidence: &ev, SkipReason: skip})
		if err != nil {
			t.Fatal(err)
		}
	}
	judge("1", fx.Relevance[0], "annotator1", &rel, "") // q1 d1
	judge("2", fx.Relevance[1], "annotator1", nil, "unsure")
	judge("3", fx.Relevance[4], "annotator2", &rel, "") // q2 d5
	jd, err := st.JudgedDocuments(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jd, map[int64]map[string]bool{q1: {"d1": true}, q2: {"d5": true}}) {
		t.Fatalf("judged documents %v", jd)
	}
}
