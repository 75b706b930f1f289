//go:build !js

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/boolexpr"
)

// setInput sets a field's value and fires the input event the page listens to.
func (e *env) setInput(sel, value string) {
	e.t.Helper()
	e.setValue(sel, value, "input")
}

// TestPoolBuilderAndExpressionEditor: a researcher previews a pool over two
// stored runs, publishes it (a pool job the page follows until it is
// done; a first publish, held up, shows its progress and is cancelled),
// and an annotator's queue then holds its items;
// the researcher corrects a query's expression in the editor and the stored
// expression changes.
func TestPoolBuilderAndExpressionEditor(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	if err := judgingtest.AddRuns(ctx, e.st, e.fx); err != nil {
		t.Fatal(err)
	}
	// Start from no relevance items, so every item in the queue comes from the pool.
	if _, err := e.st.Pool().Exec(ctx, `DELETE FROM items WHERE project_id = $1 AND kind = 'relevance'`, e.fx.Project.ID); err != nil {
		t.Fatal(err)
	}
	ann := dashLogin(t, e.url, "annotator1")
	var q api.Queue
	if st := ann.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 10}, &q); st != 200 || len(q.Tasks) != 0 {
		t.Fatalf("queue before publishing: %d, %d tasks", st, len(q.Tasks))
	}

	// Pool builder: choose both runs, depth 2, two raters; preview, publish.
	e.login("researcher")
	e.do("open pool builder", chromedp.Navigate(e.url+"/pools/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#poolbuilder[data-wasm="1"][data-state="ready"] #pool-runs`)))
	e.do("choose runs", chromedp.Click(chromedp.CSS(`input[data-run="bm25"]`)), chromedp.Click(chromedp.CSS(`input[data-run="dense"]`)))
	e.setInput("#pool-depth", "2")
	e.setInput("#pool-raters", "2")
	if eval[bool](e, `document.querySelector("#pool-publish").disabled`) != true {
		t.Error("publish is enabled before a preview")
	}
	e.do("preview", chromedp.Click(chromedp.CSS(`#pool-preview`)))
	e.waitJS("composition", `document.querySelector('#poolbuilder[data-previewed="true"] #pool-composition tr[data-run="dense"]')`, 20*time.Second)
	totals := eval[string](e, `document.querySelector("#pool-totals").textContent`)
	if !strings.HasPrefix(totals, "7 items over 2 queries") {
		t.Errorf("totals = %q", totals)
	}
	if row := eval[string](e, `document.querySelector('#pool-composition tr[data-run="bm25"]').textContent`); row != "bm25"+"4"+"3"+"1.00"+"0.83" {
		t.Errorf("bm25 row = %q, want run, 4 items, 3 unique, Judged@2 1.00, Judged@10 0.83", row)
	}
	eval[bool](e, `(document.querySelector("#pool-preview-result").scrollIntoView(), true)`)
	e.shot("pool-01-preview")
	if pools, err := e.st.ListPools(ctx, e.fx.Project.ID); err != nil || len(pools) != 0 {
		t.Fatalf("the preview saved a pool: %+v %v", pools, err)
	}
	// A publish held up (another transaction holds the project row the
	// job locks to publish) shows the job's progress; Cancel ends it and
	// nothing is published.
	tx, err := e.st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM projects WHERE id = $1 FOR NO KEY UPDATE`, e.fx.Project.ID); err != nil {
		t.Fatal(err)
	}
	e.do("publish (held up)", chromedp.Click(chromedp.CSS(`#pool-publish`)))
	e.waitJS("job progress", `(document.querySelector('#pool-job[data-state="running"] .progress-label') || {}).textContent === "publishing the pool: 0 / 7"`, 20*time.Second)
	e.shot("pool-02-publishing-job")
	e.do("cancel", chromedp.Click(chromedp.CSS(`#pool-job-cancel`)))
	e.waitJS("cancelled", `document.querySelector("#pool-job") === null && document.querySelector("#pool-message").textContent === "Publishing cancelled: nothing was published."`, 20*time.Second)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if pools, err := e.st.ListPools(ctx, e.fx.Project.ID); err != nil || len(pools) != 0 {
		t.Fatalf("a cancelled publish saved a pool: %+v %v", pools, err)
	}

	e.do("publish", chromedp.Click(chromedp.CSS(`#pool-publish`)))
	e.waitJS("published", `document.querySelector('#poolbuilder[data-published="true"]')`, 20*time.Second)
	if msg := eval[string](e, `document.querySelector("#pool-message").textContent`); !strings.Contains(msg, "7 new relevance items, 2 raters per item") {
		t.Errorf("message = %q", msg)
	}
	e.shot("pool-02-published")
	// Published by a background job (kind pool), which the page followed.
	if js, err := e.st.ListJobs(ctx, e.fx.Project.ID, 10); err != nil || len(js) != 2 || js[0].Kind != api.JobKindPool || js[0].State != api.JobDone ||
		js[1].State != api.JobCancelled {
		t.Errorf("jobs after publishing: %+v %v", js, err)
	}
	if eval[bool](e, `document.querySelector("#pool-job") === null && document.querySelector("#pool-publish").disabled`) != true {
		t.Error("after publishing, the job's progress is still shown or publish is enabled again")
	}
	if st := ann.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 10}, &q); st != 200 || len(q.Tasks) == 0 {
		t.Fatalf("queue after publishing: %d, %d tasks", st, len(q.Tasks))
	}

	// Expression editor: q1 becomes (A AND B) AND NOT C.
	e.do("open queries", chromedp.Navigate(e.url+"/queries/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#queries[data-wasm="1"][data-state="ready"] #query-list`)))
	e.shot("queries-01-list")
	e.do("edit q1", chromedp.Click(chromedp.CSS(`button.edit[data-query="q1"]`)))
	e.waitJS("editor", `document.querySelector('#expr-editor #expr-status[data-valid="true"]')`, 10*time.Second)
	e.do("suggest", chromedp.Click(chromedp.CSS(`#expr-suggest`)))
	e.waitJS("suggestion", `(document.querySelector("#queries-message") || {}).textContent === "Filled from the decomposer; check it and save."`, 10*time.Second)
	e.setInput("#expr-input", "(A AND B) AND NOT")
	e.waitJS("live error", `document.querySelector('#expr-status[data-valid="false"][data-field="expression"]') && document.querySelector("#expr-save").disabled`, 10*time.Second)
	e.shot("queries-02-invalid")
	e.setInput("#expr-input", "(A AND B) AND NOT C")
	e.setInput("#expr-atoms", "Birds\nVenezuelan Andes\nbirds of Colombia")
	e.waitJS("valid", `document.querySelector('#expr-status[data-valid="true"]')`, 10*time.Second)
	e.do("save", chromedp.Click(chromedp.CSS(`#expr-save`)))
	e.waitJS("saved", `(document.querySelector("#queries-message") || {}).textContent.startsWith("Saved q1")`, 10*time.Second)
	if got := eval[string](e, `document.querySelector('#query-list tr[data-query="q1"] td.expression').textContent`); got != `("Birds" AND "Venezuelan Andes") AND NOT "birds of Colombia"` {
		t.Errorf("listed expression = %s", got)
	}
	e.shot("queries-03-saved")
	sq, err := e.st.QueryByID(ctx, e.fx.Queries["q1"])
	if err != nil {
		t.Fatal(err)
	}
	x, err := boolexpr.ParseJSON(sq.Expression, len(sq.Atoms))
	if err != nil || x.String() != "(A AND B) AND NOT C" || len(sq.Atoms) != 3 || sq.Atoms[1].Text != "Venezuelan Andes" {
		t.Errorf("stored = %s %+v (%v)", sq.Expression, sq.Atoms, err)
	}

	// "Decompose all missing" fills q2 (its expression removed here) and
	// keeps q1's correction.
	if _, err := e.st.Pool().Exec(ctx, `UPDATE queries SET expression = NULL, atoms = '[]' WHERE id = $1`, e.fx.Queries["q2"]); err != nil {
		t.Fatal(err)
	}
	e.do("reload queries", chromedp.Navigate(e.url+"/queries/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#queries[data-wasm="1"][data-state="ready"] #query-list`)))
	if got := eval[string](e, `document.querySelector('#query-list tr[data-query="q2"] td.expression').textContent`); got != "—" {
		t.Errorf("q2 before decompose all = %q", got)
	}
	e.do("decompose all", chromedp.Click(chromedp.CSS(`#decompose-all`)))
	e.waitJS("decomposed", `((document.querySelector("#queries-message") || {}).textContent || "").startsWith("Decomposed 1 of 2 queries (1 already had an expression)")`, 10*time.Second)
	if got := eval[string](e, `document.querySelector('#query-list tr[data-query="q2"] td.expression').textContent`); got == "—" || got == "" {
		t.Errorf("q2 after decompose all = %q", got)
	}
	if got := eval[string](e, `document.querySelector('#query-list tr[data-query="q1"] td.expression').textContent`); got != `("Birds" AND "Venezuelan Andes") AND NOT "birds of Colombia"` {
		t.Errorf("q1's correction after decompose all = %s", got)
	}
	e.shot("queries-04-decomposed")
}
