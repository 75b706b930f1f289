package retrievalbench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/devtools/bench"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// RunStoreSuite returns the "runstore" suite: on a synthetic corpus it
// retrieves a 238-query × 1000-document bm25 run and stores it, and reports
// the store time against the retrieval time of the same run, and against
// COPYing the same lines into the one-row-per-result table runs used before
// migration 0070 (foreign keys and indexes as they were).
func RunStoreSuite() bench.Suite { return bench.Suite{Name: "runstore", Run: runStore} }

const (
	storeQueries = 238
	storeDocs    = 5000
	storeDepth   = 1000
)

func runStore(ctx context.Context, env *bench.Env) ([]bench.Row, error) {
	const suite = "runstore"
	st := env.Store
	p, err := st.EnsureProject(ctx, "bench-runstore")
	if err != nil {
		return nil, err
	}
	if err := synthProject(ctx, st, p.ID); err != nil {
		return nil, err
	}
	res := &retrieval.Resources{Store: st, ProjectID: p.ID, Log: env.Log}
	if _, err := res.Lexical(ctx); err != nil { // built once, not timed
		return nil, err
	}
	workers := runtime.GOMAXPROCS(0)
	var retrieveSecs, storeSecs []float64
	var queries []retrieval.Query
	var results map[string][]retrieval.Result
	for i := 0; i < max(1, env.Repeats); i++ {
		sum, qs, rs, err := retrieval.RunProject(ctx, res, retrieval.RunRequest{Method: "bm25", Depth: storeDepth, Workers: workers, NoStore: true}, nil)
		if err != nil {
			return nil, err
		}
		queries, results = qs, rs
		retrieveSecs = append(retrieveSecs, sum.Took.Seconds())
		t0 := time.Now()
		if _, err := retrieval.SaveRun(ctx, st, p.ID, "bm25", "bm25", nil, qs, rs); err != nil {
			return nil, err
		}
		storeSecs = append(storeSecs, time.Since(t0).Seconds())
	}
	lines := 0
	for _, rs := range results {
		lines += len(rs)
	}
	if lines != storeQueries*storeDepth {
		return nil, fmt.Errorf("runstore: the synthetic run has %d lines, want %d", lines, storeQueries*storeDepth)
	}
	legacySec, err := legacyStore(ctx, st, p.ID, queries, results, env.Repeats)
	if err != nil {
		return nil, err
	}
	store := bench.Median(storeSecs)
	name := fmt.Sprintf("store a %d × %d run (one ranking row per query, COPY, 1 tx)", storeQueries, storeDepth)
	rows := []bench.Row{
		bench.Row{Suite: suite, Name: name, Value: store, Unit: "s",
			Note: fmt.Sprintf("%d synthetic docs; ratio = retrieve time / store time", storeDocs)}.
			WithRef(fmt.Sprintf("retrieve the same run (bm25, %d workers)", workers), bench.Median(retrieveSecs)),
	}
	vsLegacy := bench.Row{Suite: suite, Name: name, Value: store, Unit: "s",
		Note: "ratio = old store time / new store time"}.
		WithRef("COPY into the one-row-per-result table (schema before 0070)", legacySec)
	rows = append(rows, vsLegacy.WithTarget(">= 10x", vsLegacy.Ratio >= 10))
	return rows, nil
}

// synthProject fills the project with storeDocs documents over a small
// vocabulary and storeQueries three-word queries, so that bm25 returns
// storeDepth documents for every query.
func synthProject(ctx context.Context, st *store.Store, projectID int64) error {
	vocab := strings.Fields(`apple banana cherry delta echo forest garden harbor island jungle kernel lemon
		meadow night ocean pepper quartz river stone tiger umbra valley willow xenon yellow zebra amber
		bronze copper desert ember frost granite hollow ivory jade koala lotus marble nectar onyx`)
	seed := uint64(42)
	next := func() int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed >> 33)
	}
	_, err := st.Import(ctx, projectID, func(im *store.Importer) error {
		for d := 0; d < storeDocs; d++ {
			words := make([]string, 30)
			for i := range words {
				words[i] = vocab[next()%len(vocab)]
			}
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("doc%05d", d), Body: strings.Join(words, " ")}); err != nil {
				return err
			}
		}
		for q := 0; q < storeQueries; q++ {
			text := vocab[next()%len(vocab)] + " " + vocab[next()%len(vocab)] + " " + vocab[next()%len(vocab)]
			if _, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("q%03d", q), Text: text, Seq: q}); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// legacyStore times COPYing the run into a table shaped like run_results
// before migration 0070 (one row per result, foreign keys to runs and
// queries, primary key and rank index), in one transaction that is rolled
// back; the median of repeats.
func legacyStore(ctx context.Context, st *store.Store, projectID int64, queries []retrieval.Query, results map[string][]retrieval.Result, repeats int) (float64, error) {
	var lines [][]any
	var runID int64
	if err := st.Pool().QueryRow(ctx, `SELECT id FROM runs WHERE project_id = $1 AND name = 'bm25'`, projectID).Scan(&runID); err != nil {
		return 0, fmt.Errorf("runstore: %w", err)
	}
	for _, q := range queries {
		for i, r := range results[q.ID] {
			lines = append(lines, []any{runID, q.RowID, r.DocID, int32(i + 1), r.Score})
		}
	}
	return bench.Time(repeats, func() error {
		tx, err := st.Pool().Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `CREATE TABLE bench_run_results_legacy (
			run_id bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
			query_id bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
			doc_ext_id text NOT NULL, rank int NOT NULL, score double precision NOT NULL,
			PRIMARY KEY (run_id, query_id, doc_ext_id));
			CREATE INDEX ON bench_run_results_legacy (run_id, query_id, rank)`); err != nil {
			return fmt.Errorf("runstore: legacy table: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_run_results_legacy"},
			[]string{"run_id", "query_id", "doc_ext_id", "rank", "score"}, pgx.CopyFromRows(lines)); err != nil {
			return fmt.Errorf("runstore: legacy copy: %w", err)
		}
		return nil
	})
}
