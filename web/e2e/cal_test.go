//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/server/store"
)

// TestCALDashboardTable: a published cal pool shows on the dashboard as
// the active-learning table; an annotator's judgments make the next batch
// appear in it (a background job), with the relevant found and the
// estimated recall; the Stop button ends a query.
func TestCALDashboardTable(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	q1, q2 := e.fx.Queries["q1"], e.fx.Queries["q2"]
	for name, res := range map[string][]store.RunResultIn{
		"bm25":  {{QueryID: q1, DocExtID: "d2", Rank: 1, Score: 4}, {QueryID: q2, DocExtID: "d5", Rank: 1, Score: 1}},
		"dense": {{QueryID: q1, DocExtID: "d1", Rank: 1, Score: .9}, {QueryID: q2, DocExtID: "d6", Rank: 1, Score: .6}},
	} {
		if _, err := e.st.SaveRun(ctx, e.fx.Project.ID, name, name, nil, res); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.st.Import(ctx, e.fx.Project.ID, func(im *store.Importer) error {
		for i, text := range []string{"a bird of the Venezuelan Andes", "an Andean bird of Venezuela", "a comedy film set in Paris", "granite rock", "a railway"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("n%d", i), Title: text, Body: text, SentenceStarts: []int32{0}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := dashLogin(t, e.url, "researcher")
	spec := api.PoolSpec{Name: "cal-dash", Runs: []string{"bm25", "dense"}, Depth: 1, Strategy: api.StrategyCAL, CALBatch: 2, CALStop: "none"}
	if job := publishPool(res, spec, 30*time.Second); job.State != api.JobDone {
		t.Fatalf("publish job: %+v", job)
	}

	e.login("researcher")
	e.do("dashboard with the cal table", chromedp.Navigate(e.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"] #cal tr[data-query="q1"]`)))
	cell := func(q, class string) string {
		return eval[string](e, `(document.querySelector('#cal tr[data-query="`+q+`"] .`+class+`') || {textContent: ""}).textContent`)
	}
	if got := cell("q1", "cal-round"); !strings.HasPrefix(got, "1 (2 items") {
		t.Errorf("q1 batch before judging = %q", got)
	}
	e.shot("cal-01-published")

	// annotator1 judges everything it is given: q1's and q2's first batches.
	u := dashLogin(t, e.url, "annotator1")
	n := 0
	for {
		var q api.Queue
		if st := u.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 10}, &q); st != 200 {
			t.Fatalf("queue: %d", st)
		}
		if len(q.Tasks) == 0 || n > 40 {
			break
		}
		for _, task := range q.Tasks {
			n++
			r := 0
			title := strings.ToLower(task.Document.Title)
			if strings.Contains(title, "bird") || strings.Contains(title, "andean") || strings.Contains(title, "tyrannulet") || strings.Contains(title, "flowerpiercer") {
				r = 3
			}
			req := api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 9000+n), AuthorID: u.ID, ItemID: task.ItemID,
				Kind: api.KindRelevance, Relevance: ptr(r), Evidence: api.EvidenceComplete, TimeSpentMs: 1000}
			if st := u.Do("POST", "/api/judgments", req, nil); st != 201 {
				t.Fatalf("judge: %d", st)
			}
		}
		// Only the first batches: wait for q1 to grow (the cal-batch job)
		// before asking for more, so that its second batch is not judged
		// too when the job is quicker than this loop.
		grown := func() bool {
			var pools []api.CALPool
			st := res.Do("GET", "/api/projects/fixture/cal", nil, &pools)
			return st == 200 && len(pools) == 1 && pools[0].Queries[0].Round > 0
		}
		deadline := time.Now().Add(15 * time.Second)
		for !grown() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if grown() {
			break
		}
	}
	e.waitJS("q1's second batch in the table", `(document.querySelector('#cal tr[data-query="q1"] .cal-round') || {textContent: ""}).textContent.startsWith("2 (3 items")`, 20*time.Second)
	if got := cell("q1", "cal-found"); got == "" || got == "0" {
		t.Errorf("q1 relevant found = %q", got)
	}
	if got := cell("q1", "cal-basis"); got == "" {
		t.Error("q1 has no recall basis")
	}
	if got := cell("q1", "cal-recall"); !strings.HasSuffix(got, "%") {
		t.Errorf("q1 recall = %q", got)
	}
	e.shot("cal-02-grown")

	e.do("stop q2", chromedp.Click(chromedp.CSS(`#cal tr[data-query="q2"] .cal-stop`)))
	e.waitJS("q2 stopped", `document.querySelector('#cal tr[data-query="q2"]').dataset.state === "stopped"`, 10*time.Second)
	if got := cell("q2", "cal-state"); !strings.Contains(got, "stopped by researcher") {
		t.Errorf("q2 state = %q", got)
	}
	e.shot("cal-03-stopped")
}
