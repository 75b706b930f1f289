package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/cal"
	"boolpool/server/judging"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// TestCALSurvivesKillAfterJudgment (issue 29): a `boolpool serve` process
// is SIGKILLed right after the judgments that complete the first batch of
// every query of a live cal pool are committed, before their consensus
// refresh and the cal trigger ran (the window is held open by the test-only
// BOOLPOOL_TEST_HOLD_AFTER_JUDGMENT). Two servers then start on the
// database: with no researcher action, every query gets its next batch
// within 30 s, once (not once per server), and the consensus of the
// judgments the killed process never refreshed is repaired at start.
//
// BOOLPOOL_CRASH_TRIALS=10 runs ten trials (each on a fresh database) and
// logs the seconds from the restart to the last query's next batch.
func TestCALSurvivesKillAfterJudgment(t *testing.T) {
	trials := 1
	if v := os.Getenv("BOOLPOOL_CRASH_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("BOOLPOOL_CRASH_TRIALS=%q: want a positive number", v)
		}
		trials = n
	}
	cache := os.Getenv("BOOLPOOL_CACHE")
	var took []time.Duration
	for i := range trials {
		t.Run(fmt.Sprint("trial", i+1), func(t *testing.T) {
			took = append(took, calCrashTrial(t, cache))
		})
	}
	if t.Failed() {
		return
	}
	var sum, worst time.Duration
	secs := make([]string, len(took))
	for i, d := range took {
		sum += d
		worst = max(worst, d)
		secs[i] = fmt.Sprintf("%.1f", d.Seconds())
	}
	t.Logf("%d trials: every cal query had its next batch %v s after the restart (mean %.1f s, worst %.1f s; limit 30 s)",
		len(took), secs, sum.Seconds()/float64(len(took)), worst.Seconds())
}

// calCrashTrial runs one kill and restart and returns the time from the
// restart to the last query's next batch.
func calCrashTrial(t *testing.T, cache string) time.Duration {
	ctx := context.Background()
	url, st := migratedDB(t)
	fx := judgingtest.New(t, st, 1)
	if err := judgingtest.AddRuns(ctx, st, fx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Import(ctx, fx.Project.ID, func(im *store.Importer) error {
		for i, text := range []string{"a bird of the Venezuelan Andes", "an Andean bird of Venezuela", "a comedy film set in Paris",
			"Paris comedy films", "granite rock", "a railway", "copper metal", "a steam engine"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("n%d", i), Title: text, Body: text, SentenceStarts: []int32{0}}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const batch = 2
	rep, err := pooling.Create(ctx, st, fx.Project.ID, pooling.Spec{Name: "cal", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: pooling.CAL,
		CAL: pooling.CALParams{Batch: batch, Stop: pooling.CALStopNone, Max: 50}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PublishPool(ctx, rep.PoolID, fx.Users["researcher"].ID, 0); err != nil {
		t.Fatal(err)
	}
	poolID := rep.PoolID
	calQueries := func() []store.CALQuery {
		t.Helper()
		qs, err := st.CALQueries(ctx, poolID)
		if err != nil {
			t.Fatal(err)
		}
		return qs
	}
	if qs := calQueries(); len(qs) < 2 {
		t.Fatalf("the cal pool has %d queries, want at least 2", len(qs))
	}
	// The first batch's relevance items, per query.
	rows, err := st.Pool().Query(ctx, `SELECT pi.query_id, i.id FROM pool_items pi
		JOIN documents d ON d.project_id = $2 AND d.ext_id = pi.doc_ext_id
		JOIN items i ON i.project_id = $2 AND i.kind = 'relevance' AND i.query_id = pi.query_id AND i.document_id = d.id
		WHERE pi.pool_id = $1 AND pi.round = 0 ORDER BY pi.query_id, pi.priority`, poolID, fx.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	firstBatch := map[int64][]int64{}
	var qid, iid int64
	for rows.Next() {
		if err := rows.Scan(&qid, &iid); err != nil {
			t.Fatal(err)
		}
		firstBatch[qid] = append(firstBatch[qid], iid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	// A server judges each first batch but its last item.
	a := startServeProc(t, cache, nil, "--database-url", url, "--workers", "1")
	ann := lbLogin(t, a.base, "annotator1")
	var q api.Queue
	if code := ann.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: judging.MaxQueue}, &q); code != 200 {
		t.Fatalf("queue: status %d", code)
	}
	leased := map[int64]bool{}
	for _, task := range q.Tasks {
		leased[task.ItemID] = true
	}
	n := 0
	judgment := func(item int64) api.JudgmentRequest {
		n++
		rel := n % 2 * 2
		return api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), AuthorID: ann.ID,
			ItemID: item, Kind: api.KindRelevance, Relevance: &rel, Evidence: api.EvidenceComplete, TimeSpentMs: 1000}
	}
	var last []int64 // the completing item of each query
	for _, items := range firstBatch {
		for k, item := range items {
			if !leased[item] {
				t.Fatalf("item %d of the first batch was not leased", item)
			}
			if k == len(items)-1 {
				last = append(last, item)
				continue
			}
			if code := ann.Do("POST", "/api/judgments", judgment(item), nil); code != 201 {
				t.Fatalf("judge item %d: status %d", item, code)
			}
		}
	}
	stopServe(t, a, syscall.SIGTERM)

	// A server that holds every judgment between its commit and its
	// consensus refresh gets the completing judgments, and is SIGKILLed
	// once they are committed.
	b := startServeProc(t, cache, []string{testHoldEnv + "=5m"}, "--database-url", url, "--workers", "1")
	annB := lbLogin(t, b.base, "annotator1")
	answered := make(chan string, len(last))
	var wg sync.WaitGroup
	for _, item := range last {
		body, _ := json.Marshal(judgment(item))
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", b.base+"/api/judgments", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(api.CSRFHeader, annB.CSRF)
			res, err := annB.Client.Do(req)
			if err == nil {
				res.Body.Close()
				answered <- fmt.Sprintf("item %d answered %d before the kill: the hold did not hold", item, res.StatusCode)
			}
		}()
	}
	waitFor(t, "the completing judgments committed", 20*time.Second, func() bool {
		var c int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM judgments WHERE item_id = ANY($1)`, last).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c == len(last)
	})
	time.Sleep(100 * time.Millisecond) // (nothing runs after the commit: the hold)
	stopServe(t, b, syscall.SIGKILL)
	wg.Wait()
	close(answered)
	for msg := range answered {
		t.Fatal(msg)
	}
	// The crash left every query stalled: batch fully judged, no next
	// batch, no job queued, the last labels missing from the consensus.
	for _, q := range calQueries() {
		if q.Round != 0 || q.Pending != 0 || q.State != store.CALActive {
			t.Fatalf("after the kill: %+v, want round 0 fully judged", q)
		}
	}
	if stale, err := st.ConsensusStale(ctx, fx.Project.ID); err != nil || !stale {
		t.Fatalf("after the kill the consensus is stale = %v (%v), want true", stale, err)
	}

	// Restart: two servers, no researcher action.
	restart := time.Now()
	for range 2 {
		startServeProc(t, cache, nil, "--database-url", url, "--workers", "1")
	}
	var took time.Duration
	waitFor(t, "every cal query's next batch", 30*time.Second, func() bool {
		for _, q := range calQueries() {
			if q.Round < 1 {
				return false
			}
		}
		took = time.Since(restart)
		return true
	})
	t.Logf("every cal query had its next batch %.1f s after the restart", took.Seconds())

	// Each query's next batch once, of the grown size.
	var round1, dup int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(*) - count(DISTINCT (query_id, doc_ext_id)) FROM pool_items
		WHERE pool_id = $1 AND round = 1`, poolID).Scan(&round1, &dup); err != nil {
		t.Fatal(err)
	}
	if want := len(firstBatch) * cal.NextBatchSize(batch); round1 != want || dup != 0 {
		t.Errorf("round 1 has %d items (%d repeated), want %d: one batch per query", round1, dup, want)
	}
	// The consensus of the judgments the killed server never refreshed.
	for _, item := range last {
		if _, err := st.ConsensusOf(ctx, item); err != nil {
			t.Errorf("consensus of item %d: %v (not repaired at start)", item, err)
		}
	}
	if stale, err := st.ConsensusStale(ctx, fx.Project.ID); err != nil || stale {
		t.Errorf("after the restart the consensus is stale = %v (%v), want false", stale, err)
	}
	return took
}

// stopServe signals a serve process and waits for it to end.
func stopServe(t *testing.T, p *serveProc, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("serve %s: still running 20 s after %v", p.base, sig)
	}
}

// waitFor polls ok every 50 ms until it holds, failing the test after limit.
func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
