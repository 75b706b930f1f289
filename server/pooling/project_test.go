package pooling

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func TestCreateAndSimulateStored(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "toy")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	docs := map[string]string{"r1": "red apple", "r2": "red cherry", "n1": "green apple", "n2": "banana", "x": "red red"}
	expr, _ := json.Marshal(boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))))
	var qid int64
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for id, text := range docs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Body: text}); err != nil {
				return err
			}
		}
		var err error
		qid, err = im.Query(ctx, store.QueryIn{ExtID: "q", Text: "apple not green", Atoms: []store.Atom{{Text: "apple"}, {Text: "green"}}, Expression: expr})
		if err != nil {
			return err
		}
		return im.Qrel(ctx, qid, "r1", 1, "positive", "gold")
	})
	if err != nil {
		t.Fatal(err)
	}
	qs := []retrieval.Query{{ID: "q", RowID: qid}}
	save := func(name string, docs ...string) {
		var rs []retrieval.Result
		for i, d := range docs {
			rs = append(rs, retrieval.Result{DocID: d, Score: float64(10 - i)})
		}
		if _, err := retrieval.SaveRun(ctx, st, p.ID, name, "test", nil, qs, map[string][]retrieval.Result{"q": rs}); err != nil {
			t.Fatal(err)
		}
	}
	save("a", "n1", "r1", "n2")
	save("b", "r1", "r2")
	rep, err := Create(ctx, st, p.ID, Spec{Name: "p1", Runs: []string{"a", "b"}, Depth: 2, Strategy: Bandit, Probes: true, ProbeDepth: 1, JudgedK: []int{2, 3}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Composition.Items != 3 || rep.Composition.ProbeOnly != 0 || rep.JudgedAtK["a"][3] != 2.0/3 || rep.JudgedAtK["b"][2] != 1 {
		t.Fatalf("report %+v", rep)
	}
	items, err := st.PoolItems(ctx, rep.PoolID)
	if err != nil || len(items) != 3 || items[0].QueryExtID != "q" {
		t.Fatalf("items %+v %v", items, err)
	}
	probes := 0
	for _, it := range items {
		if it.Probe != "" {
			probes++
		}
	}
	if probes == 0 {
		t.Error("no probe labels stored")
	}
	// Rebuilding a draft replaces it; a published pool is never replaced.
	if _, err := Create(ctx, st, p.ID, Spec{Name: "p1", Runs: []string{"a"}, Depth: 1, Strategy: Depth}, log); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE pools SET status = 'published' WHERE id = $1`, rep.PoolID); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, st, p.ID, Spec{Name: "p1", Runs: []string{"a"}, Depth: 1, Strategy: Depth}, log); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("replacing a published pool: %v", err)
	}
	sum, err := SimulateProject(ctx, st, p.ID, []string{"a", "b"}, 3, "", []string{DocID, Depth}, []float64{1}, BanditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Pool {n1, r1, n2, r2}; docid order n1 n2 r1 r2 → 3; rank order n1 r1 → 2.
	if sum.Queries != 1 || sum.Results[0].TotalJudgments[0] != 3 || sum.Results[1].TotalJudgments[0] != 2 {
		t.Fatalf("simulation %+v", sum)
	}
}
