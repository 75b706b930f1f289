package httpapi_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/store/storetest"
)

func strp(s string) *string { return &s }
func intp(n int) *int       { return &n }

// judgeTask judges one leased relevance task as u with grade and the
// active time ms; it fails the test unless the server stores it.
func judgeTask(t *testing.T, u *user, n int, item int64, grade int, ms int64) {
	t.Helper()
	ev := "none"
	if grade >= 2 {
		ev = "complete"
	}
	req := api.JudgmentRequest{ClientID: uuid(n), AuthorID: u.id, ItemID: item, Kind: api.KindRelevance,
		Relevance: rel(grade), Evidence: ev, TimeSpentMs: ms}
	var p api.Problem
	if st := u.do("POST", "/api/judgments", req, &p); st != 201 {
		t.Fatalf("judge item %d: %d %+v", item, st, p)
	}
}

func liveLeases(t *testing.T, e *env, userID int64) int {
	t.Helper()
	var n int
	if err := e.st.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM assignments WHERE user_id = $1 AND status = 'leased' AND lease_expires_at > now()`, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 25, Major 5: the completion settings are validated field by field
// and kept.
func TestCrowdCompletionSettingsValidation(t *testing.T) {
	e := newEnv(t, 1, nil)
	e.enableCrowd(0)
	r := e.login("researcher")
	bad := []struct {
		name  string
		req   any
		field string
	}{
		{"nothing", `{}`, "body"},
		{"ftp URL", api.CrowdUpdateRequest{CompletionURL: strp("ftp://example.org/done")}, "completion_url"},
		{"javascript URL", api.CrowdUpdateRequest{CompletionURL: strp("javascript:alert(1)")}, "completion_url"},
		{"relative URL", api.CrowdUpdateRequest{CompletionURL: strp("/done?cc=1")}, "completion_url"},
		{"URL with a space", api.CrowdUpdateRequest{CompletionURL: strp("https://example.org/a b")}, "completion_url"},
		{"URL over 2 KB", api.CrowdUpdateRequest{CompletionURL: strp("https://example.org/?cc=" + strings.Repeat("x", 2048))}, "completion_url"},
		{"code with a newline", api.CrowdUpdateRequest{CompletionCode: strp("AB\nCD")}, "completion_code"},
		{"code too long", api.CrowdUpdateRequest{CompletionCode: strp(strings.Repeat("C", 201))}, "completion_code"},
		{"negative item quota", api.CrowdUpdateRequest{QuotaItems: intp(-1)}, "quota_items"},
		{"huge minute quota", api.CrowdUpdateRequest{QuotaMinutes: intp(200_000)}, "quota_minutes"},
		{"negative cap", api.CrowdUpdateRequest{MaxParticipants: intp(-3)}, "max_participants"},
	}
	for _, tc := range bad {
		var p api.Problem
		if st := r.do("PUT", "/api/projects/fixture/crowd", tc.req, &p); st != 400 || p.Field != tc.field {
			t.Errorf("%s: %d %+v, want 400 naming %s", tc.name, st, p, tc.field)
		}
	}
	const done = "https://app.prolific.com/submissions/complete?cc=C0DE-42"
	var cs api.CrowdSettings
	req := api.CrowdUpdateRequest{CompletionCode: strp("C0DE-42"), CompletionURL: strp(done), QuotaItems: intp(5), QuotaMinutes: intp(30)}
	if st := r.do("PUT", "/api/projects/fixture/crowd", req, &cs); st != 200 {
		t.Fatalf("valid settings: %d", st)
	}
	var got api.CrowdSettings
	if st := r.do("GET", "/api/projects/fixture/crowd", nil, &got); st != 200 || got.CompletionCode != "C0DE-42" ||
		got.CompletionURL != done || got.QuotaItems != 5 || got.QuotaMinutes != 30 || !got.Enabled || got != cs {
		t.Errorf("settings read back: %d %+v (PUT answered %+v)", st, got, cs)
	}
	// Absent fields stay; an empty URL clears it.
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{CompletionURL: strp("")}, &got); st != 200 ||
		got.CompletionURL != "" || got.CompletionCode != "C0DE-42" || got.QuotaItems != 5 {
		t.Errorf("clearing the URL: %d %+v", st, got)
	}
	if st := e.login("annotator1").do("PUT", "/api/projects/fixture/crowd", req, nil); st != 403 {
		t.Errorf("annotator sets the completion: %d, want 403", st)
	}
}

// Issue 25, Major 5: a participant who reaches the quota is told they are
// done (code and URL), holds no more leases and gets no more items;
// members are unaffected; the payment table counts the work.
func TestCrowdQuotaCompletesAndPaymentTable(t *testing.T) {
	e := newEnv(t, 1, nil)
	ctx := context.Background()
	if err := judgingtest.AddRelevanceItems(ctx, e.st, e.fx, 12); err != nil {
		t.Fatal(err)
	}
	cs := e.enableCrowd(0)
	r := e.login("researcher")
	const done = "https://app.prolific.com/submissions/complete?cc=C0DE-42"
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{CompletionCode: strp("C0DE-42"),
		CompletionURL: strp(done), QuotaItems: intp(3)}, nil); st != 200 {
		t.Fatalf("settings: %d", st)
	}
	p1 := e.anon()
	if st, _ := p1.enter(cs.EntryPath, "p1", nil); st != 303 {
		t.Fatalf("entry p1: %d", st)
	}
	q := p1.queue(api.KindRelevance, 10)
	if len(q.Tasks) != 3 || q.Completed || q.CompletionCode != "" {
		t.Fatalf("first queue of p1: %d tasks, completed %v, code %q; want 3 tasks, not completed", len(q.Tasks), q.Completed, q.CompletionCode)
	}
	judgeTask(t, p1, 1, q.Tasks[0].ItemID, 3, 30_000)
	judgeTask(t, p1, 2, q.Tasks[1].ItemID, 0, 30_000)
	if q2 := p1.queue(api.KindRelevance, 10); q2.Completed || len(q2.Tasks) != 1 {
		t.Fatalf("after 2 of 3 items: completed %v, %d tasks; want the one item still needed", q2.Completed, len(q2.Tasks))
	}
	// The researcher lowers the quota to 2: p1 is done now.
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{QuotaItems: intp(2)}, nil); st != 200 {
		t.Fatalf("lower quota: %d", st)
	}
	for i := 0; i < 2; i++ {
		q = p1.queue(api.KindRelevance, 3)
		if !q.Completed || len(q.Tasks) != 0 || q.CompletionCode != "C0DE-42" || q.CompletionURL != done || q.Progress.Done != 2 {
			t.Fatalf("p1 at the quota (ask %d): %+v; want completed with the code and URL, no tasks, 2 done", i+1, q)
		}
	}
	if n := liveLeases(t, e, p1.id); n != 0 {
		t.Errorf("p1 still holds %d leases after completing", n)
	}
	// A judgment of the item leased before completing is still kept.
	var held int64
	if err := e.st.Pool().QueryRow(ctx, `SELECT item_id FROM assignments WHERE user_id = $1 AND status = 'expired'`, p1.id).Scan(&held); err != nil {
		t.Fatalf("the released lease: %v", err)
	}
	judgeTask(t, p1, 3, held, 0, 0)

	// A member judging more than the quota is unaffected.
	a1 := e.login("annotator1")
	n := 100
	for i := 0; i < 2; i++ {
		for _, tk := range a1.queue(api.KindRelevance, 3).Tasks {
			n++
			judgeTask(t, a1, n, tk.ItemID, 1, 1000)
		}
	}
	if qa := a1.queue(api.KindRelevance, 3); qa.Completed || len(qa.Tasks) == 0 || qa.Progress.Done < 3 {
		t.Errorf("member past the crowd quota: completed %v, %d tasks, %d done; want more work", qa.Completed, len(qa.Tasks), qa.Progress.Done)
	}

	// The minutes quota: one minute of active time is enough.
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{QuotaItems: intp(0), QuotaMinutes: intp(1)}, nil); st != 200 {
		t.Fatalf("minute quota: %d", st)
	}
	p2 := e.anon()
	if st, _ := p2.enter(cs.EntryPath, "p2", nil); st != 303 {
		t.Fatalf("entry p2: %d", st)
	}
	q = p2.queue(api.KindRelevance, 3)
	if len(q.Tasks) == 0 || q.Completed {
		t.Fatalf("p2's first queue: %+v", q)
	}
	judgeTask(t, p2, 200, q.Tasks[0].ItemID, 2, 40_000)
	if q = p2.queue(api.KindRelevance, 3); q.Completed {
		t.Fatalf("p2 completed after 40 s of a 1-minute quota")
	}
	judgeTask(t, p2, 201, q.Tasks[0].ItemID, 2, 25_000)
	if q = p2.queue(api.KindRelevance, 3); !q.Completed || len(q.Tasks) != 0 || q.CompletionCode != "C0DE-42" {
		t.Fatalf("p2 after 65 s of a 1-minute quota: %+v", q)
	}
	p3 := e.anon()
	if st, _ := p3.enter(cs.EntryPath, "p3", nil); st != 303 {
		t.Fatalf("entry p3: %d", st)
	}

	// Gold: p1's first item (graded 3) and second (graded 0) have the gold answer 3.
	tx := `UPDATE items SET is_gold = true, gold_answer = '3' WHERE id = ANY($1)`
	judged := storetest.Column[int64](t, e.st, `SELECT item_id FROM judgments WHERE user_id = $1 ORDER BY id LIMIT 2`, p1.id)
	if len(judged) != 2 {
		t.Fatalf("p1's judged items: %v", judged)
	}
	if _, err := e.st.Pool().Exec(ctx, tx, judged); err != nil {
		t.Fatal(err)
	}

	var table api.CrowdParticipants
	if st := r.do("GET", "/api/projects/fixture/crowd/participants", nil, &table); st != 200 || len(table.Participants) != 3 {
		t.Fatalf("payment table: %d %+v", st, table)
	}
	by := map[string]api.CrowdParticipant{}
	for _, p := range table.Participants {
		by[p.Participant] = p
	}
	g1, g2, g3 := by["p1"], by["p2"], by["p3"]
	if g1.Items != 3 || g1.ActiveMinutes != 1 || g1.GoldJudged != 2 || g1.GoldCorrect != 1 || g1.GoldAccuracy == nil ||
		*g1.GoldAccuracy != 0.5 || !g1.Completed || g1.CompletedAt == nil || g1.FirstJudgment == nil || g1.LastJudgment == nil ||
		g1.LastJudgment.Before(*g1.FirstJudgment) {
		t.Errorf("p1's line: %+v", g1)
	}
	if g2.Items != 2 || g2.ActiveMinutes != 1.08 || g2.GoldJudged != 0 || g2.GoldAccuracy != nil || !g2.Completed {
		t.Errorf("p2's line: %+v (want 2 items, 1.08 minutes, no gold, completed)", g2)
	}
	if g3.Items != 0 || g3.ActiveMinutes != 0 || g3.Completed || g3.FirstJudgment != nil {
		t.Errorf("p3's line: %+v (want nothing done, not completed)", g3)
	}
	if _, ok := by["annotator1"]; ok || table.QuotaMinutes != 1 || table.QuotaItems != 0 {
		t.Errorf("table: %+v (members are not participants; quota 0 items, 1 minute)", table)
	}

	for _, path := range []string{"/api/projects/fixture/crowd/participants.csv", "/api/projects/fixture/crowd/participants?format=csv"} {
		st, body, h := r.get(path)
		if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(h.Get("Content-Disposition"), "fixture-participants.csv") {
			t.Fatalf("%s: %d %v", path, st, h)
		}
		recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		if err != nil || len(recs) != 4 {
			t.Fatalf("%s: %v, %d records:\n%s", path, err, len(recs), body)
		}
		if got := strings.Join(recs[0], ","); got != "participant,items_judged,active_minutes,gold_judged,gold_correct,gold_accuracy,completed,completed_at,first_judgment,last_judgment,disabled" {
			t.Errorf("CSV header %q", got)
		}
		lines := map[string][]string{}
		for _, rec := range recs[1:] {
			lines[rec[0]] = rec
		}
		if l := lines["p1"]; l == nil || l[1] != "3" || l[2] != "1.00" || l[3] != "2" || l[4] != "1" || l[5] != "0.500" || l[6] != "yes" || l[7] == "" || l[8] == "" {
			t.Errorf("p1 CSV line %q", l)
		}
		if l := lines["p2"]; l == nil || l[1] != "2" || l[2] != "1.08" || l[5] != "" || l[6] != "yes" {
			t.Errorf("p2 CSV line %q", l)
		}
		if l := lines["p3"]; l == nil || l[1] != "0" || l[6] != "no" || l[8] != "" {
			t.Errorf("p3 CSV line %q", l)
		}
	}
	if st, _, _ := r.get("/api/projects/fixture/crowd/participants?format=xml"); st != http.StatusBadRequest {
		t.Errorf("format=xml: %d, want 400", st)
	}
	if st, _, _ := e.login("annotator1").get("/api/projects/fixture/crowd/participants.csv"); st != 403 {
		t.Errorf("annotator reads the payment table: %d, want 403", st)
	}
}

// Without a quota, a participant for whom nothing is left gets the code
// and the URL (not "completed": more items may come) and counts as
// completed in the payment table; before that they do not.
func TestCrowdNothingLeftGivesCodeAndURL(t *testing.T) {
	e := newEnv(t, 1, nil)
	cs := e.enableCrowd(0)
	r := e.login("researcher")
	const done = "https://example.org/done?cc=ZZ-1"
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{CompletionCode: strp("ZZ-1"), CompletionURL: strp(done)}, nil); st != 200 {
		t.Fatalf("settings: %d", st)
	}
	p := e.anon()
	if st, _ := p.enter(cs.EntryPath, "solo", nil); st != 303 {
		t.Fatalf("entry: %d", st)
	}
	n := 0
	for round := 0; ; round++ {
		q := p.queue(api.KindRelevance, 3)
		if len(q.Tasks) == 0 {
			if q.Completed || q.CompletionCode != "ZZ-1" || q.CompletionURL != done || n == 0 {
				t.Fatalf("nothing left after %d judgments: %+v; want the code and URL, not completed", n, q)
			}
			break
		}
		if q.CompletionCode != "" || q.CompletionURL != "" {
			t.Fatalf("code handed out with %d tasks left: %+v", len(q.Tasks), q)
		}
		if round == 0 {
			var table api.CrowdParticipants
			if st := r.do("GET", "/api/projects/fixture/crowd/participants", nil, &table); st != 200 || len(table.Participants) != 1 || table.Participants[0].Completed {
				t.Fatalf("table before the end: %d %+v", st, table)
			}
		}
		for _, tk := range q.Tasks {
			n++
			judgeTask(t, p, n, tk.ItemID, 1, 1000)
		}
		if round > 50 {
			t.Fatal("the queue never ran dry")
		}
	}
	var table api.CrowdParticipants
	if st := r.do("GET", "/api/projects/fixture/crowd/participants", nil, &table); st != 200 || len(table.Participants) != 1 ||
		!table.Participants[0].Completed || table.Participants[0].Items != n || table.Participants[0].CompletedAt == nil {
		t.Errorf("table after the end (%d judged): %d %+v", n, st, table)
	}
}
