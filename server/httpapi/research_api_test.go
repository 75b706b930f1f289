package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/config"
	"boolpool/server/store"
)

// sseClient reads snapshot events from /api/projects/:project/live.
type sseClient struct {
	events chan api.LiveSnapshot
	cancel context.CancelFunc
}

func (u *user) subscribe(path string) *sseClient {
	u.e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", u.e.srv.URL+path, nil)
	res, err := u.c.Do(req)
	if err != nil {
		u.e.t.Fatalf("subscribe: %v", err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		u.e.t.Fatalf("subscribe: status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sseClient{events: make(chan api.LiveSnapshot, 64), cancel: cancel}
	go func() {
		defer res.Body.Close()
		judgingtest.ReadSnapshots(res.Body, func(snap api.LiveSnapshot) { s.events <- snap })
		close(s.events)
	}()
	u.e.t.Cleanup(cancel)
	return s
}

// until waits for a snapshot satisfying ok.
func (s *sseClient) until(t *testing.T, what string, ok func(api.LiveSnapshot) bool) api.LiveSnapshot {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case snap, open := <-s.events:
			if !open {
				t.Fatalf("event stream closed while waiting for %s", what)
			}
			if ok(snap) {
				return snap
			}
		case <-timeout:
			t.Fatalf("no snapshot with %s within 10s", what)
		}
	}
}

func (u *user) get(path string) (int, []byte, http.Header) {
	u.e.t.Helper()
	res, err := u.c.Get(u.e.srv.URL + path)
	if err != nil {
		u.e.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// labels[doc] are the three annotators' grades.
var researchLabels = map[string][3]int{
	"d1": {3, 3, 2}, // unanimous relevant, but annotator3 contradicts herself → queue
	"d2": {3, 1, 0}, // majority not relevant (median 1) → queue
	"d3": {2, 2, 0}, // majority relevant (median 2) → queue
	"d4": {0, 0, 1}, // unanimous not relevant
	"d5": {3, 2, 3}, // unanimous relevant
	"d6": {1, 1, 1}, // unanimous not relevant
}

func TestResearchLiveAdjudicationExport(t *testing.T) {
	e := newEnv(t, 3, nil)
	ctx := context.Background()
	// One run over the fixture's documents, so the leaderboard has a row.
	_, err := e.st.SaveRun(ctx, e.fx.Project.ID, "bm25", "bm25", nil, []store.RunResultIn{
		{QueryID: e.fx.Queries["q1"], DocExtID: "d2", Rank: 1, Score: 4}, {QueryID: e.fx.Queries["q1"], DocExtID: "d1", Rank: 2, Score: 3},
		{QueryID: e.fx.Queries["q1"], DocExtID: "d3", Rank: 3, Score: 2}, {QueryID: e.fx.Queries["q2"], DocExtID: "d5", Rank: 1, Score: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	researcher, admin := e.login("researcher"), e.login("admin")
	if st, _, _ := e.login("annotator1").get("/api/projects/fixture/dashboard"); st != http.StatusForbidden {
		t.Errorf("annotator dashboard: status %d, want 403", st)
	}
	live := researcher.subscribe("/api/projects/fixture/live")
	first := live.until(t, "the first snapshot", func(api.LiveSnapshot) bool { return true })
	if first.Consensus.Items != 0 || first.Progress.Items != 6 {
		t.Errorf("first snapshot: %+v %+v", first.Consensus, first.Progress)
	}

	docOf := map[int64]string{}
	for doc, id := range e.fx.Documents {
		docOf[id] = doc
	}
	n := 0
	for a, name := range []string{"annotator1", "annotator2", "annotator3"} {
		u := e.login(name)
		u.eachRelevanceTask(func(task api.Task) {
			doc := docOf[task.Document.ID]
			req := api.JudgmentRequest{ClientID: uuid(1000 + n), AuthorID: u.id, ItemID: task.ItemID, Kind: api.KindRelevance,
				Relevance: rel(researchLabels[doc][a]), Evidence: api.EvidenceComplete, TimeSpentMs: 1000,
				Attributions: judgingtest.D1Attributions(doc, a)}
			n++
			var res api.JudgmentResponse
			if st := u.do("POST", "/api/judgments", req, &res); st != 201 {
				t.Fatalf("%s judges %s: status %d", name, doc, st)
			}
		})
	}
	if n != 18 {
		t.Fatalf("%d judgments, want 18", n)
	}
	snap := live.until(t, "all 18 judgments", func(s api.LiveSnapshot) bool { return s.Progress.Judged == 6 })
	if c := snap.Consensus; c.Items != 6 || c.Queue != 3 || c.Majority != 2 || c.Relevant != 3 {
		t.Errorf("consensus summary %+v, want 6 items, queue 3, majority 2, relevant 3 (d1, d3, d5)", c)
	}
	if snap.Agreement.AlphaOrdinal == nil || snap.Agreement.FleissKappa == nil || snap.Agreement.FleissItems != 6 {
		t.Errorf("agreement %+v", snap.Agreement)
	}
	if len(snap.Leaderboard) != 1 || snap.Leaderboard[0].Run != "bm25" || snap.Leaderboard[0].Scores[0].Mean == nil {
		t.Fatalf("leaderboard %+v", snap.Leaderboard)
	}
	// q1: ranking d2(1) d1(3) d3(2), trec_eval gains = grades; ideal 3,2,1.
	// q2: d5(3) alone; judged d5(3), d6(1) → ideal 3,1.
	ndcgQ1 := (1 + 3/1.584962500721156 + 2/2.0) / (3 + 2/1.584962500721156 + 1/2.0)
	ndcgQ2 := 3 / (3 + 1/1.584962500721156)
	if got, want := *snap.Leaderboard[0].Scores[0].Mean, (ndcgQ1+ndcgQ2)/2; got-want > 1e-9 || want-got > 1e-9 {
		t.Errorf("ndcg@10 = %v, want %v", got, want)
	}
	if len(snap.Templates) != 1 || len(snap.Operators) != 2 || snap.Operators[0].Label != "AND" || snap.Operators[0].Queries != 2 ||
		snap.Operators[1].Label != "NOT" || snap.Operators[1].Queries != 1 {
		t.Errorf("breakdowns: templates %+v, operators %+v", snap.Templates, snap.Operators)
	}
	if snap.Contradictions.Total != 1 || snap.Contradictions.Items[0].DocExtID != "d1" || snap.Contradictions.Items[0].Raters[0] != "annotator3" {
		t.Errorf("contradictions %+v", snap.Contradictions)
	}

	// The queue shows d1, d2, d3 with every judgment side by side.
	var queue api.AdjudicationQueue
	if st := researcher.do("GET", "/api/projects/fixture/adjudication", nil, &queue); st != 200 || queue.Total != 3 {
		t.Fatalf("queue: status %d, %+v", st, queue)
	}
	var d2 api.AdjudicationItem
	for _, it := range queue.Items {
		if it.Document != nil && it.Document.ExtID == "d2" {
			d2 = it
		}
		if len(it.Judgments) != 3 || len(it.Query.Atoms) != 2 || it.Query.Expression == nil {
			t.Errorf("queue item %d: %d judgments, %d atoms", it.ItemID, len(it.Judgments), len(it.Query.Atoms))
		}
	}
	if d2.ItemID == 0 || d2.Consensus.Relevance != 1 || d2.Consensus.Status != "majority" {
		t.Fatalf("d2 in queue: %+v", d2)
	}
	if st := e.login("annotator1").do("POST", "/api/items/"+itoa(int(d2.ItemID))+"/adjudication", api.AdjudicationRequest{Relevance: rel(2)}, nil); st != 403 {
		t.Errorf("annotator adjudicates: status %d, want 403", st)
	}
	var res api.AdjudicationResult
	if st := researcher.do("POST", "/api/items/"+itoa(int(d2.ItemID))+"/adjudication", api.AdjudicationRequest{Relevance: rel(2), Note: "the Andes count"}, &res); st != 200 {
		t.Fatalf("adjudicate: status %d", st)
	}
	if res.Consensus.Status != "adjudicated" || res.Consensus.Relevance != 2 || res.Consensus.NeedsAdjudication || res.Adjudication.Adjudicator != "researcher" {
		t.Errorf("adjudication result %+v", res)
	}
	snap = live.until(t, "the adjudication", func(s api.LiveSnapshot) bool { return s.Consensus.Adjudicated == 1 })
	if snap.Consensus.Queue != 2 || snap.Consensus.Relevant != 4 {
		t.Errorf("after adjudication: %+v", snap.Consensus)
	}
	var audited int
	if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'adjudication.decide' AND entity_id = $1`, itoa(int(d2.ItemID))).Scan(&audited); err != nil || audited != 1 {
		t.Errorf("adjudication audited %d times (%v)", audited, err)
	}

	// Exports: consensus qrels and QUEST jsonl match the judgments.
	if st, _, _ := researcher.get("/api/projects/fixture/exports/qrels-consensus"); st != 403 {
		t.Errorf("researcher export: status %d, want 403", st)
	}
	st, body, hdr := admin.get("/api/projects/fixture/exports/qrels-consensus")
	if st != 200 || hdr.Get("X-Export-Id") == "" {
		t.Fatalf("qrels export: status %d, id %q", st, hdr.Get("X-Export-Id"))
	}
	wantQrels := "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 2\nq1 0 d4 0\nq2 0 d5 3\nq2 0 d6 1\n"
	if string(body) != wantQrels {
		t.Errorf("qrels-consensus:\n%s\nwant:\n%s", body, wantQrels)
	}
	st, body, _ = admin.get("/api/projects/fixture/exports/quest-judged")
	if st != 200 {
		t.Fatalf("quest-judged: status %d", st)
	}
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if len(lines) != 2 {
		t.Fatalf("quest-judged: %d lines", len(lines))
	}
	var q1 struct {
		Docs     []string `json:"docs"`
		Metadata struct {
			Relevance    map[string][]string            `json:"relevance_ratings"`
			Evidence     map[string][]string            `json:"evidence_ratings"`
			Attributions map[string][]map[string]string `json:"attributions"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &q1); err != nil {
		t.Fatalf("quest-judged line 1: %v", err)
	}
	names := []string{"Definitely not relevant", "Likely not relevant", "Likely relevant", "Definitely relevant"}
	for doc, labels := range researchLabels {
		if doc == "d5" || doc == "d6" {
			continue
		}
		got := q1.Metadata.Relevance[doc]
		if len(got) != 3 || got[0] != names[labels[0]] || got[1] != names[labels[1]] || got[2] != names[labels[2]] {
			t.Errorf("relevance_ratings[%s] = %v, want %v", doc, got, labels)
		}
		if ev := q1.Metadata.Evidence[doc]; len(ev) != 3 || ev[0] != "Complete" {
			t.Errorf("evidence_ratings[%s] = %v", doc, ev)
		}
	}
	if a := q1.Metadata.Attributions["d1"]; len(a) != 3 || a[0]["Birds of the Venezuelan Andes"] != "It is found in the Andes of Venezuela." || len(a[1]) != 0 {
		t.Errorf("attributions[d1] = %v", a)
	}
	// Relevant by consensus: d1, d2 (adjudicated), d3; in the fixture's answer order.
	if strings.Join(q1.Docs, ",") != "d1,d2,d3" {
		t.Errorf("docs = %v, want d1,d2,d3", q1.Docs)
	}
	var snaps []api.ExportSnapshot
	if st := admin.do("GET", "/api/projects/fixture/exports", nil, &snaps); st != 200 || len(snaps) != 2 {
		t.Fatalf("export snapshots: status %d, %+v", st, snaps)
	}
	for _, s := range snaps {
		if s.CreatedBy != "admin" || s.Counts["sha256"] == nil || s.Counts["lines"] == nil || s.Failed {
			t.Errorf("snapshot %+v", s)
		}
	}
	// Issue 25: a failed export is recorded with its reason and listed
	// (first: the newest), next to the two that worked.
	if st, _, _ = admin.get("/api/projects/fixture/exports/trec-run?run=nosuchrun"); st < 400 {
		t.Fatalf("trec-run of an unknown run: status %d, want a failure", st)
	}
	snaps = nil
	if st := admin.do("GET", "/api/projects/fixture/exports", nil, &snaps); st != 200 || len(snaps) != 3 {
		t.Fatalf("exports after a failure: status %d, %+v", st, snaps)
	}
	if f := snaps[0]; !f.Failed || f.Format != "trec-run" || !strings.Contains(f.Error, "nosuchrun") || f.CreatedBy != "admin" || f.ID == "" {
		t.Errorf("failed export listed as %+v, want failed trec-run by admin naming the run", f)
	}
}

// Issue 29 item 4: one account's open live streams are bounded (429
// beyond), another account is not affected, and a closed stream gives its
// slot back.
func TestLiveStreamsBoundedPerUser(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.MaxStreamsPerUser = 2 })
	r := e.login("researcher")
	const path = "/api/projects/fixture/live"
	s1 := r.subscribe(path)
	r.subscribe(path)
	status := func(u *user) int {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
		res, err := u.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		return res.StatusCode
	}
	if st := status(r); st != 429 {
		t.Errorf("third stream of one account: %d, want 429", st)
	}
	// Another session of the same account counts too; another account
	// does not.
	if st := status(e.login("researcher")); st != 429 {
		t.Errorf("third stream from another session of the account: %d, want 429", st)
	}
	e.login("admin").subscribe(path)
	// Closing a stream frees its slot (the handler notices the client left).
	s1.cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
		res, err := r.c.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		st := res.StatusCode
		cancel()
		res.Body.Close()
		if st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream slot 5 s after one was closed: %d", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
