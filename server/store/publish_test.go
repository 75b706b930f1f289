package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// goldFixture imports nq queries with docs documents each into a new
// project, gold qrels (3 positives per query) for the even-numbered
// queries only, and saves one pool holding every (query, document) pair.
func goldFixture(t *testing.T, st *store.Store, nq, docs int) (store.Project, int64) {
	t.Helper()
	ctx := context.Background()
	p, err := st.EnsureProject(ctx, "goldpub")
	if err != nil {
		t.Fatal(err)
	}
	var items []store.PoolItemIn
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for d := 0; d < docs; d++ {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("d%d", d), Title: "t", Body: "body text."}); err != nil {
				return err
			}
		}
		for q := 0; q < nq; q++ {
			qid, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("q%d", q), Text: fmt.Sprintf("query %d", q), Seq: q})
			if err != nil {
				return err
			}
			if q%2 == 0 {
				for d := 0; d < 3; d++ {
					if err := im.Qrel(ctx, qid, fmt.Sprintf("d%d", d), 1, "positive", "gold"); err != nil {
						return err
					}
				}
			}
			for d := 0; d < docs; d++ {
				items = append(items, store.PoolItemIn{QueryID: qid, DocExtID: fmt.Sprintf("d%d", d), Priority: d})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	poolID, err := st.SavePool(ctx, p.ID, "gold-pool", "depth", 100, nil, items)
	if err != nil {
		t.Fatal(err)
	}
	return p, poolID
}

// TestPublishCreatesGoldAtRate is the regression test of defect 6: the
// gold share was compared with an integer parameter ($2 * 10000 made
// Postgres type $2 as integer), so a rate of 0.1 created no gold items.
func TestPublishCreatesGoldAtRate(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	p, poolID := goldFixture(t, st, 20, 100) // 2,000 items, 1,000 eligible (10 queries with gold)
	res, err := st.PublishPool(ctx, poolID, 0, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 2000 {
		t.Fatalf("published %d items, want 2000", res.Items)
	}
	// 1,000 eligible items at 10 %: the hash choice is deterministic, but
	// binomial-like; 3 standard deviations (±28) around 100.
	if math.Abs(float64(res.Gold)-100) > 30 {
		t.Errorf("gold items = %d of 1000 eligible, want ≈100 (rate 0.1)", res.Gold)
	}
	rows, err := st.Pool().Query(ctx, `SELECT q.ext_id, d.ext_id, i.gold_answer FROM items i
		JOIN queries q ON q.id = i.query_id JOIN documents d ON d.id = i.document_id
		WHERE i.project_id = $1 AND i.is_gold`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, positives := 0, 0
	for rows.Next() {
		var q, d string
		var ans []byte
		if err := rows.Scan(&q, &d, &ans); err != nil {
			t.Fatal(err)
		}
		var a struct{ Relevance *int }
		if err := json.Unmarshal(ans, &a); err != nil || a.Relevance == nil {
			t.Fatalf("gold answer of %s/%s = %s", q, d, ans)
		}
		var qn, dn int
		fmt.Sscanf(q, "q%d", &qn)
		fmt.Sscanf(d, "d%d", &dn)
		if qn%2 != 0 {
			t.Errorf("gold item %s/%s: the query has no gold qrels", q, d)
		}
		want := 0
		if dn < 3 {
			want = 3
			positives++
		}
		if *a.Relevance != want {
			t.Errorf("gold answer of %s/%s = %d, want %d", q, d, *a.Relevance, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != res.Gold {
		t.Errorf("%d gold rows, publish reported %d", n, res.Gold)
	}
	t.Logf("gold %d of 1000 eligible (%d with a positive answer)", n, positives)
}

// TestPublishGoldRateBounds checks the ends of the scale: rate 0 creates
// no gold item, rate 1 makes every eligible item gold.
func TestPublishGoldRateBounds(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want int
	}{{0, 0}, {1, 100}} {
		t.Run(fmt.Sprint(tc.rate), func(t *testing.T) {
			st := storetest.New(t)
			_, poolID := goldFixture(t, st, 4, 50) // 100 eligible
			res, err := st.PublishPool(context.Background(), poolID, 0, tc.rate)
			if err != nil {
				t.Fatal(err)
			}
			if res.Gold != tc.want {
				t.Errorf("rate %v: %d gold items, want %d", tc.rate, res.Gold, tc.want)
			}
		})
	}
}

// TestLeaseMixesPublishedGold leases from a published pool at the
// project's rate (the lease function's p_gold_rate is double precision):
// a rater's queue of 20 holds gold items, one in every ten.
func TestLeaseMixesPublishedGold(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	p, poolID := goldFixture(t, st, 20, 100)
	if _, err := st.PublishPool(ctx, poolID, 0, 0.1); err != nil {
		t.Fatal(err)
	}
	u, err := st.CreateUser(ctx, store.NewUser{Username: "goldrater", Role: "annotator", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	as, err := st.Lease(ctx, store.LeaseParams{ProjectID: p.ID, UserID: u.ID, Kind: "relevance", N: 20, Raters: 3, GoldRate: 0.1, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	gold := goldCount(t, st, as)
	// The lease function serves gold while gold < rate·(items+1): items 1
	// and 11 of 20.
	if len(as) != 20 || gold != 2 {
		t.Errorf("leased %d items, %d gold; want 20 with 2 gold", len(as), gold)
	}
}
