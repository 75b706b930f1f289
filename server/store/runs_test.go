package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func runProject(t *testing.T, st *store.Store, nq int) (store.Project, []int64) {
	t.Helper()
	ctx := context.Background()
	p, err := st.EnsureProject(ctx, "runs")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for i := 0; i < nq; i++ {
			id, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("q%03d", i), Text: "text", Seq: i})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, ids
}

func readRun(t *testing.T, st *store.Store, runID int64) []store.RunRow {
	t.Helper()
	var out []store.RunRow
	if err := st.EachRunRow(context.Background(), runID, func(r store.RunRow) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSaveRunOneRowPerQuery: a 238 × 1000 run is stored as 238 rows (one
// ranking per query), fast, reads back in query then rank order, replaces
// a run of the same name, and ListRuns counts queries and results.
func TestSaveRunOneRowPerQuery(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p, qids := runProject(t, st, 238)
	var rows []store.RunResultIn
	for _, q := range qids {
		for r := 1000; r >= 1; r-- { // out of order on purpose
			rows = append(rows, store.RunResultIn{QueryID: q, DocExtID: fmt.Sprintf("d%05d", (r*7919+int(q))%50000), Rank: r, Score: float64(1000 - r)})
		}
	}
	start := time.Now()
	runID, err := st.SaveRun(ctx, p.ID, "big", "bm25", nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	// One row per result took 12–16 s here (two foreign-key checks and two
	// b-tree insertions per result); one row per query takes well under 1 s.
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("storing 238 × 1000 took %s", took)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM run_rankings WHERE run_id = $1`, runID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 238 {
		t.Fatalf("%d ranking rows, want 238", n)
	}
	got := readRun(t, st, runID)
	if len(got) != 238000 || got[0].QueryExtID != "q000" || got[0].Rank != 1 || got[999].Rank != 1000 || got[1000].QueryExtID != "q001" {
		t.Fatalf("read back %d rows, first %+v, 1000th %+v", len(got), got[0], got[999])
	}
	runs, err := st.ListRuns(ctx, p.ID)
	if err != nil || len(runs) != 1 || runs[0].Queries != 238 || runs[0].Results != 238000 {
		t.Fatalf("ListRuns %+v %v", runs, err)
	}
	// Same name: replaced, not appended; a query without results has no row.
	again, err := st.SaveRun(ctx, p.ID, "big", "bm25", nil, []store.RunResultIn{
		{QueryID: qids[1], DocExtID: "b", Rank: 2, Score: 1}, {QueryID: qids[1], DocExtID: "a", Rank: 1, Score: 2}})
	if err != nil || again != runID {
		t.Fatalf("replace: id %d (was %d), %v", again, runID, err)
	}
	got = readRun(t, st, runID)
	if len(got) != 2 || got[0].DocExtID != "a" || got[1].DocExtID != "b" || got[0].QueryExtID != "q001" {
		t.Fatalf("replaced run: %+v", got)
	}
	runs, _ = st.ListRuns(ctx, p.ID)
	if runs[0].Queries != 1 || runs[0].Results != 2 {
		t.Fatalf("ListRuns after replace %+v", runs)
	}
	// Deleting a query removes its rankings (the foreign key cascades).
	if _, err := st.Pool().Exec(ctx, `DELETE FROM queries WHERE id = $1`, qids[1]); err != nil {
		t.Fatal(err)
	}
	if got = readRun(t, st, runID); len(got) != 0 {
		t.Fatalf("rankings of a deleted query remain: %+v", got)
	}
}

// TestImportRunLines: run lines imported one by one (TREC run files) end
// up as rankings in rank order; a repeated document keeps its last line;
// re-importing the run replaces it.
func TestImportRunLines(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p, qids := runProject(t, st, 2)
	var runID int64
	counts, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		id, err := im.Run(ctx, "trec", "", nil)
		if err != nil {
			return err
		}
		runID = id
		for _, l := range []struct {
			q    int64
			doc  string
			rank int
		}{{qids[1], "x", 2}, {qids[0], "b", 2}, {qids[0], "a", 1}, {qids[1], "y", 1}, {qids[0], "b", 3}} {
			if err := im.RunResult(ctx, id, l.q, l.doc, l.rank, float64(10-l.rank)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if counts.RunResults != 5 {
		t.Errorf("counted %d lines", counts.RunResults)
	}
	got := readRun(t, st, runID)
	want := []store.RunRow{{"q000", "a", 1, 9}, {"q000", "b", 3, 7}, {"q001", "y", 1, 9}, {"q001", "x", 2, 8}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		id, err := im.Run(ctx, "trec", "", nil)
		if err != nil {
			return err
		}
		return im.RunResult(ctx, id, qids[0], "z", 1, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := readRun(t, st, runID); len(got) != 1 || got[0].DocExtID != "z" {
		t.Fatalf("re-import: %+v", got)
	}
}

// TestRunRankingsMigrationKeepsRuns: runs stored one row per result before
// migration 0070 read back identically after it.
func TestRunRankingsMigrationKeepsRuns(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.URL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateTo(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `INSERT INTO projects (name) VALUES ('old');
		INSERT INTO queries (project_id, ext_id, text, seq) SELECT id, 'q1', 'one', 1 FROM projects;
		INSERT INTO queries (project_id, ext_id, text, seq) SELECT id, 'q2', 'two', 2 FROM projects;
		INSERT INTO runs (project_id, name) SELECT id, 'r' FROM projects;
		INSERT INTO run_results (run_id, query_id, doc_ext_id, rank, score)
			SELECT r.id, q.id, v.doc, v.rank, v.score FROM runs r, queries q,
			(VALUES ('q2', 'b', 2, 0.5), ('q1', 'c', 1, 3.0), ('q2', 'a', 1, 0.9)) AS v(q, doc, rank, score)
			WHERE q.ext_id = v.q`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := s.ProjectByName(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.RunIDByName(ctx, p.ID, "r")
	if err != nil {
		t.Fatal(err)
	}
	got := readRun(t, s, id)
	want := []store.RunRow{{"q1", "c", 1, 3}, {"q2", "a", 1, 0.9}, {"q2", "b", 2, 0.5}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after migration %+v, want %+v", got, want)
	}
}
