package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/api"
	"boolpool/server/consensus"
	"boolpool/server/devtools/synth"
	"boolpool/server/export"
	"boolpool/server/live"
	"boolpool/server/store"
)

// LiveSuite measures the live dashboards at the scale (2,000
// queries × 10 runs × 100k judgments; --quick: 200 × 10 × 10k): the time
// to update every metric and agreement figure after one new judgment
// (consensus refresh in the database plus the in-memory update, and with
// the dashboard snapshot a publish builds), against recomputing everything
// from scratch in the same run; and export throughput of the judged
// formats against the raw-judgment CSV export.
func LiveSuite() Suite {
	return Suite{Name: "live", Run: runLive}
}

func runLive(ctx context.Context, env *Env) ([]Row, error) {
	spec := synth.LiveSpec{Queries: 2000, Runs: 10, Judgments: 100_000, Raters: 3, Annotator: 30, Seed: 1}
	updates := 50
	if env.Quick {
		spec.Queries, spec.Judgments, updates = 200, 10_000, 10
	}
	d := synth.Live(spec)
	name := fmt.Sprintf("bench-live-%d", time.Now().UnixNano())
	start := time.Now()
	pid, items, users, err := loadSynthetic(ctx, env.Store, name, d)
	if err != nil {
		return nil, fmt.Errorf("bench live: load: %w", err)
	}
	fmt.Fprintf(env.Progress, "live: loaded %d queries, %d items, %d judgments in %s\n", len(d.Queries), len(d.Items), spec.Judgments, time.Since(start).Round(time.Second))
	scale := fmt.Sprintf("%d queries × %d runs × %dk judgments", spec.Queries, spec.Runs, spec.Judgments/1000)

	svc := live.NewService(env.Store, live.NewHub(4), time.Hour, env.Log)
	defer svc.Close()
	cons := consensus.NewService(env.Store, env.Log)
	cons.AddItemListener(svc)
	defer cons.Close()
	start = time.Now()
	if _, err := svc.Snapshot(ctx, pid, name); err != nil {
		return nil, err
	}
	loadSec := time.Since(start).Seconds()

	// One new judgment at a time: a rater changes their label on an item.
	rng := rand.New(rand.NewPCG(3, 3))
	var update, withSnap []float64
	for i := range updates {
		k := rng.IntN(len(d.Items))
		it := d.Items[k]
		votes := d.Votes[it.ID]
		if len(votes) == 0 {
			continue
		}
		v := votes[rng.IntN(len(votes))]
		rel := int16(rng.IntN(4))
		ev := api.EvidenceComplete
		_, _, err := env.Store.SaveJudgment(ctx, store.NewJudgment{ClientID: api.NewUUID(), ItemID: items[it.ID], UserID: users[v.Rater],
			ProjectID: pid, Kind: api.KindRelevance, Relevance: &rel, Evidence: &ev})
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := cons.ItemChanged(ctx, pid, items[it.ID]); err != nil {
			return nil, err
		}
		t1 := time.Now()
		update = append(update, t1.Sub(t0).Seconds()*1000)
		if i%2 == 0 {
			if _, err := svc.Snapshot(ctx, pid, name); err != nil {
				return nil, err
			}
			withSnap = append(withSnap, time.Since(t0).Seconds()*1000)
		}
	}
	full, err := live.LoadData(ctx, env.Store, pid)
	if err != nil {
		return nil, err
	}
	// The reference rebuilds every figure from the project's data, as
	// loading a project does, and builds its snapshot.
	recomputeSec, err := Time(1, func() error { _ = live.Build(full).Snapshot(name); return nil })
	if err != nil {
		return nil, err
	}
	refMs := recomputeSec * 1000
	const fromScratch = "full rebuild from scratch (state + snapshot)"
	p95 := Percentile(update, 95)
	med := Median(append([]float64(nil), update...))
	rows := []Row{
		Row{Suite: "live", Name: "update metrics + agreement after one judgment (" + scale + ", consensus refresh in DB + in-memory)",
			Value: med, Unit: "ms", Note: fmt.Sprintf("p95 %.1f ms over %d judgments", p95, len(update))}.
			WithRef(fromScratch, refMs).WithTarget("< 50 ms", med < 50),
		Row{Suite: "live", Name: "same, plus the dashboard snapshot (bootstrap intervals)",
			Value: Median(withSnap), Unit: "ms", Note: fmt.Sprintf("p95 %.1f ms", Percentile(withSnap, 95))}.
			WithRef(fromScratch, refMs).WithTarget("< 50 ms", Median(withSnap) < 50),
		{Suite: "live", Name: "load a project's live state (" + scale + ")", Value: loadSec, Unit: "s", Note: "once per project and process"},
	}

	// Export throughput.
	repeats := env.Repeats
	if env.Quick {
		repeats = 1
	}
	// Rates count judgments behind the output (quest-judged writes one
	// line per query) or lines (one per judgment or qrel) otherwise.
	exportRate := func(format string) (float64, float64, error) {
		var lines int
		var bytes int64
		sec, err := Time(repeats, func() error {
			cw := &countWriter{}
			c, err := export.Write(ctx, env.Store, pid, format, cw, export.Options{})
			lines, bytes = c.Lines, cw.n
			if c.Judgments > 0 {
				lines = c.Judgments
			}
			return err
		})
		if err != nil || sec == 0 {
			return 0, 0, err
		}
		return float64(lines) / sec, float64(bytes) / 1e6 / sec, nil
	}
	csvRate, _, err := exportRate("csv")
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"qrels-consensus", "quest-judged"} {
		rate, mbs, err := exportRate(f)
		if err != nil {
			return nil, err
		}
		unit := "qrels/s"
		if f == "quest-judged" {
			unit = "judgments/s"
		}
		rows = append(rows, Row{Suite: "live", Name: "export " + f + " (" + scale + ")", Value: rate, Unit: unit, HigherIsBetter: true,
			Note: fmt.Sprintf("%.1f MB/s", mbs)}.WithRef("csv of raw judgments (judgments/s)", csvRate))
	}
	var snapSec float64
	snapSec, err = Time(repeats, func() error {
		_, err := export.WriteSnapshot(ctx, env.Store, pid, "qrels-consensus", io.Discard, export.Options{}, "", 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows = append(rows, Row{Suite: "live", Name: "recorded export snapshot of qrels-consensus (hash + export_snapshots row)", Value: snapSec * 1000, Unit: "ms"})
	return rows, nil
}

// loadSynthetic writes d into a new project with COPY and returns the
// project id and the database ids of d's items and users.
func loadSynthetic(ctx context.Context, st *store.Store, name string, d live.Data) (int64, map[int64]int64, map[int64]int64, error) {
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		return 0, nil, nil, err
	}
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `UPDATE projects SET raters_per_item = $2 WHERE id = $1`, p.ID, d.RatersPerItem); err != nil {
		return 0, nil, nil, err
	}
	items := map[int64]int64{}
	users := map[int64]int64{}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		copyRows := func(table string, cols []string, n int, row func(i int) []any) error {
			_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromSlice(n, func(i int) ([]any, error) { return row(i), nil }))
			if err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
			return nil
		}
		if err := copyRows("queries", []string{"project_id", "ext_id", "text", "template", "seq"}, len(d.Queries), func(i int) []any {
			q := d.Queries[i]
			return []any{p.ID, q.ExtID, "synthetic query " + q.ExtID, q.Template, i}
		}); err != nil {
			return err
		}
		qid := map[string]int64{}
		rows, _ := tx.Query(ctx, `SELECT id, ext_id FROM queries WHERE project_id = $1`, p.ID)
		var id int64
		var ext string
		if _, err := pgx.ForEachRow(rows, []any{&id, &ext}, func() error { qid[ext] = id; return nil }); err != nil {
			return err
		}
		queryID := map[int64]int64{}
		for _, q := range d.Queries {
			queryID[q.ID] = qid[q.ExtID]
		}
		if err := copyRows("documents", []string{"project_id", "ext_id", "title", "body", "sentence_starts", "content_hash"}, len(d.Items), func(i int) []any {
			it := d.Items[i]
			body := "Synthetic document " + it.DocExtID + ". It exists for the live benchmark."
			return []any{p.ID, it.DocExtID, it.DocExtID, body, []int32{0, int32(len("Synthetic document " + it.DocExtID + ". "))}, store.ContentHash(it.DocExtID, body)}
		}); err != nil {
			return err
		}
		did := map[string]int64{}
		rows, _ = tx.Query(ctx, `SELECT id, ext_id FROM documents WHERE project_id = $1`, p.ID)
		if _, err := pgx.ForEachRow(rows, []any{&id, &ext}, func() error { did[ext] = id; return nil }); err != nil {
			return err
		}
		for r, run := range d.Runs {
			var runID int64
			if err := tx.QueryRow(ctx, `INSERT INTO runs (project_id, name, method) VALUES ($1, $2, 'synthetic') RETURNING id`, p.ID, run.Name).Scan(&runID); err != nil {
				return err
			}
			var lines [][]any // one ranking row per query
			for _, q := range d.Queries {
				docs := run.Ranked[q.ID]
				if len(docs) == 0 {
					continue
				}
				ranks := make([]int32, len(docs))
				scores := make([]float64, len(docs))
				for rank := range docs {
					ranks[rank], scores[rank] = int32(rank+1), float64(1000-rank)
				}
				lines = append(lines, []any{runID, queryID[q.ID], docs, ranks, scores})
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"run_rankings"}, []string{"run_id", "query_id", "doc_ext_ids", "ranks", "scores"}, pgx.CopyFromRows(lines)); err != nil {
				return fmt.Errorf("copy run %d: %w", r, err)
			}
		}
		for uid, uname := range d.Users {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO users (username, role) VALUES ($1, 'annotator') RETURNING id`, name+"-"+uname).Scan(&id); err != nil {
				return err
			}
			users[uid] = id
		}
		if err := copyRows("items", []string{"project_id", "kind", "query_id", "document_id", "is_gold", "gold_answer"}, len(d.Items), func(i int) []any {
			it := d.Items[i]
			var gold any
			if it.Gold >= 0 {
				gold = fmt.Sprint(it.Gold)
			}
			return []any{p.ID, "relevance", queryID[it.QueryID], did[it.DocExtID], it.Gold >= 0, gold}
		}); err != nil {
			return err
		}
		byDoc := map[int64]int64{}
		rows, _ = tx.Query(ctx, `SELECT id, document_id FROM items WHERE project_id = $1`, p.ID)
		var doc int64
		if _, err := pgx.ForEachRow(rows, []any{&id, &doc}, func() error { byDoc[doc] = id; return nil }); err != nil {
			return err
		}
		for _, it := range d.Items {
			items[it.ID] = byDoc[did[it.DocExtID]]
		}
		var judgments [][]any
		for _, it := range d.Items {
			for _, v := range d.Votes[it.ID] {
				judgments = append(judgments, []any{api.NewUUID(), items[it.ID], users[v.Rater], "relevance", int16(v.Label), "complete", v.Contradiction})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"judgments"}, []string{"client_id", "item_id", "user_id", "kind", "relevance", "evidence", "contradiction"}, pgx.CopyFromRows(judgments)); err != nil {
			return fmt.Errorf("copy judgments: %w", err)
		}
		var negs [][]any
		for q, docs := range d.Negatives {
			for _, doc := range docs {
				negs = append(negs, []any{p.ID, queryID[q], doc, int16(0), "negative", "probe"})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"qrels"}, []string{"project_id", "query_id", "doc_ext_id", "relevance", "kind", "source"}, pgx.CopyFromRows(negs)); err != nil {
			return fmt.Errorf("copy negatives: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, nil, nil, err
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		return 0, nil, nil, err
	}
	return p.ID, items, users, nil
}
