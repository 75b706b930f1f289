//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/store"
)

// dashUser is an annotator judging through the JSON API (faster than the
// UI, which journey_test.go already drives), with its own cookie jar.
type dashUser = judgingtest.APIUser

// dashLogin signs name in through the API.
func dashLogin(t *testing.T, base, name string) *dashUser {
	t.Helper()
	u := judgingtest.Login(t, base, name)
	u.Client.Timeout = 20 * time.Second
	return u
}

// publishPool asks, as researcher u, for the fixture project's pool spec
// and waits up to timeout for the job that publishes it to finish.
func publishPool(u *dashUser, spec api.PoolSpec, timeout time.Duration) api.JobView {
	u.T.Helper()
	var job api.JobView
	if st := u.Do("POST", "/api/projects/fixture/pools", spec, &job); st != 202 {
		u.T.Fatalf("publish: %d", st)
	}
	deadline := time.Now().Add(timeout)
	for !job.Finished() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if st := u.Do("GET", fmt.Sprintf("/api/jobs/%d", job.ID), nil, &job); st != 200 {
			u.T.Fatalf("publish job: %d", st)
		}
	}
	return job
}

// dashLabels[doc] are annotator1..3's grades. annotator3's d2 is held back
// and sent while the researcher watches: it turns d2 from "not relevant,
// grade 0" into a disagreement with grade 1 (lower median of 1, 0, 3),
// which moves nDCG, completes the sixth item for Fleiss' κ and puts d2 in
// the adjudication queue.
var dashLabels = map[string][3]int{
	"d1": {3, 3, 2}, // annotator3 contradicts her own constraint labels → queue
	"d2": {1, 0, 3},
	"d3": {2, 2, 0}, // majority relevant → queue
	"d4": {0, 0, 1},
	"d5": {3, 2, 3},
	"d6": {1, 1, 1},
}

func TestDashboardLiveAdjudicationExport(t *testing.T) {
	e := newEnv(t, 3)
	ctx := context.Background()
	q1, q2 := e.fx.Queries["q1"], e.fx.Queries["q2"]
	for name, res := range map[string][]store.RunResultIn{
		"bm25":  {{QueryID: q1, DocExtID: "d2", Rank: 1, Score: 4}, {QueryID: q1, DocExtID: "d1", Rank: 2, Score: 3}, {QueryID: q1, DocExtID: "d3", Rank: 3, Score: 2}, {QueryID: q2, DocExtID: "d5", Rank: 1, Score: 1}},
		"dense": {{QueryID: q1, DocExtID: "d1", Rank: 1, Score: .9}, {QueryID: q1, DocExtID: "d3", Rank: 2, Score: .8}, {QueryID: q1, DocExtID: "d4", Rank: 3, Score: .7}, {QueryID: q2, DocExtID: "d6", Rank: 1, Score: .6}, {QueryID: q2, DocExtID: "d5", Rank: 2, Score: .5}},
	} {
		if _, err := e.st.SaveRun(ctx, e.fx.Project.ID, name, name, nil, res); err != nil {
			t.Fatal(err)
		}
	}

	// The researcher opens the dashboard before anyone has judged.
	e.login("researcher")
	e.do("dashboard live", chromedp.Navigate(e.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"][data-live="open"][data-state="empty"] #no-judgments`)))
	e.shot("dash-01-empty")
	eval[bool](e, `window.__sameDocument = true`)

	// Three annotators judge the pool through the API.
	docOf := map[int64]string{}
	for doc, id := range e.fx.Documents {
		docOf[id] = doc
	}
	var heldItem int64
	n := 0
	judge := func(u *dashUser, a int, itemID int64, doc string) {
		t.Helper()
		req := api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 5000+n), AuthorID: u.ID, ItemID: itemID, Kind: api.KindRelevance,
			Relevance: ptr(dashLabels[doc][a]), Evidence: api.EvidenceComplete, TimeSpentMs: 1500,
			Attributions: judgingtest.D1Attributions(doc, a)}
		n++
		var res api.JudgmentResponse
		if st := u.Do("POST", "/api/judgments", req, &res); st != 201 {
			t.Fatalf("judge %s: status %d", doc, st)
		}
	}
	annotators := []*dashUser{dashLogin(t, e.url, "annotator1"), dashLogin(t, e.url, "annotator2"), dashLogin(t, e.url, "annotator3")}
	for a, u := range annotators {
		done := map[int64]bool{}
		for round := 0; round < 10; round++ {
			var q api.Queue
			if st := u.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 5}, &q); st != 200 {
				t.Fatalf("queue: status %d", st)
			}
			fresh := 0
			for _, task := range q.Tasks {
				doc := docOf[task.Document.ID]
				if done[task.ItemID] {
					continue
				}
				done[task.ItemID] = true
				if a == 2 && doc == "d2" {
					heldItem = task.ItemID
					continue
				}
				fresh++
				judge(u, a, task.ItemID, doc)
			}
			if fresh == 0 {
				break
			}
		}
	}
	if n != 17 || heldItem == 0 {
		t.Fatalf("%d judgments (want 17), held item %d", n, heldItem)
	}

	// The dashboard fills in by itself: 17 judgments over 6 items.
	e.waitJS("17 judgments on the dashboard", `document.querySelector("#dashboard").dataset.state === "ready" &&
		document.querySelector("#fleiss-kappa .card-note").textContent.startsWith("5 ")`, 20*time.Second)
	e.waitJS("leaderboard", `document.querySelector('#leaderboard tr[data-run="bm25"] td[data-mean]')`, 5*time.Second)
	read := func() map[string]string {
		return eval[map[string]string](e, `(() => {
			const v = (sel) => (document.querySelector(sel) || {dataset: {}}).dataset.value || "";
			const m = (run) => (document.querySelector('#leaderboard tr[data-run="' + run + '"] td[data-mean]') || {dataset: {}}).dataset.mean || "";
			return {kappa: v("#fleiss-kappa"), alpha: v("#alpha-ordinal"), alphaNominal: v("#alpha-nominal"), ac1: v("#gwet-ac1"),
				bm25: m("bm25"), dense: m("dense"), version: document.querySelector("#dashboard").dataset.version,
				measure: (document.querySelector('#leaderboard td[data-measure]') || {dataset: {}}).dataset.measure || ""};
		})()`)
	}
	before := read()
	t.Logf("before the last judgment: %v", before)
	if before["kappa"] == "" || before["alpha"] == "" || before["bm25"] == "" {
		t.Fatalf("dashboard values missing before: %v", before)
	}
	e.shot("dash-02-before")

	// One more judgment arrives over server-sent events: κ, α and the
	// leaderboard change without a reload.
	judge(annotators[2], 2, heldItem, "d2")
	e.waitJS("the 18th judgment", `document.querySelector("#fleiss-kappa .card-note").textContent.startsWith("6 ")`, 20*time.Second)
	after := read()
	t.Logf("after the last judgment: %v", after)
	if !eval[bool](e, `window.__sameDocument === true`) {
		t.Error("the dashboard reloaded instead of updating live")
	}
	for _, k := range []string{"kappa", "alpha", "bm25"} {
		if after[k] == "" || after[k] == before[k] {
			t.Errorf("%s did not change live: before %q, after %q", k, before[k], after[k])
		}
	}
	// What the page shows is what the server computed.
	var snap api.LiveSnapshot
	if err := json.Unmarshal([]byte(eval[string](e, `fetch("/api/projects/fixture/dashboard").then(r => r.text())`)), &snap); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%.6f", *snap.Agreement.FleissKappa); got != after["kappa"] {
		t.Errorf("page κ %s, server %s", after["kappa"], got)
	}
	if got := fmt.Sprintf("%.6f", *snap.Agreement.AlphaOrdinal); got != after["alpha"] {
		t.Errorf("page α %s, server %s", after["alpha"], got)
	}
	if snap.Consensus.Queue != 3 {
		t.Errorf("queue %d, want 3 (d1 contradiction, d2 and d3 disagreements)", snap.Consensus.Queue)
	}
	fullShot(e, "dash-03-after-live-update")

	// Quality control: the panel shows the gold check and the Dawid–Skene
	// run; each annotator row has the DS estimates the server computed;
	// saving the form changes the project's settings.
	e.waitJS("quality panel", `!!document.querySelector("#quality #ds-summary") && document.querySelector("#ds-summary").textContent.includes("Dawid–Skene over")`, 10*time.Second)
	for _, a := range snap.Annotators {
		if a.DSAccuracy == nil {
			t.Fatalf("%s: no DS accuracy in the snapshot", a.Username)
		}
		cell := eval[string](e, fmt.Sprintf(`document.querySelector('#annotators tr[data-user=%q] td:nth-of-type(8)').textContent`, a.Username))
		if want := fmt.Sprintf("%.0f%%", *a.DSAccuracy*100); cell != want {
			t.Errorf("%s: DS accuracy cell %q, server %s", a.Username, cell, want)
		}
	}
	e.do("set a gold minimum", chromedp.SetValue(chromedp.CSS(`#gold-min-accuracy`), ""),
		chromedp.SendKeys(chromedp.CSS(`#gold-min-accuracy`), "0.75"), chromedp.Click(chromedp.CSS(`#quality-save`)))
	e.waitJS("quality saved", `(document.querySelector("#quality-message") || {textContent: ""}).textContent === "Saved."`, 10*time.Second)
	if got := eval[string](e, `fetch("/api/projects/fixture/quality").then(r => r.text())`); !strings.Contains(got, `"gold_min_accuracy":0.75`) {
		t.Errorf("quality settings after saving the form: %s", got)
	}

	// The researcher adjudicates d2 in the UI: pick it, key 2, a note, Enter.
	e.do("adjudication page", chromedp.Navigate(e.url+"/adjudicate/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#adjudication[data-wasm="1"][data-state="ready"] button.queue-entry[data-doc="d2"]`)))
	// Enter before a relevance is picked only warns. (The warning stays on
	// screen, so deciding d2 below re-renders the queue rows in place.)
	e.key("\r")
	e.waitJS("pick a relevance first", `(document.querySelector("#adjudication-message") || {textContent: ""}).textContent.startsWith("Pick a relevance first")`, 5*time.Second)
	e.do("choose d2", chromedp.Click(chromedp.CSS(`button.queue-entry[data-doc="d2"]`)))
	rowsBefore := eval[[]string](e, `[...document.querySelectorAll("button.queue-entry")].map(b => b.dataset.item)`)
	e.waitJS("d2 side by side", fmt.Sprintf(`document.querySelector("#adjudication").dataset.item === "%d" && document.querySelectorAll("#judgments thead th").length === 4`, heldItem), 10*time.Second)
	e.key("2")
	e.do("decision chosen", chromedp.WaitVisible(chromedp.CSS(`#decide button[data-relevance="2"][aria-checked="true"]`)))
	e.do("note", chromedp.SendKeys(chromedp.CSS(`#adjudication-note`), "sentence 2 places it in the Venezuelan Andes"))
	e.shot("dash-04-adjudication")
	e.do("decide", chromedp.SendKeys(chromedp.CSS(`#adjudication-note`), "\r"))
	e.waitJS("d2 leaves the queue", `!document.querySelector('button.queue-entry[data-doc="d2"]') && document.querySelector("#adjudication").dataset.total === "2"`, 10*time.Second)
	e.shot("dash-05-adjudicated")
	// j / k walk the queue; d1 shows each rater's attributions side by side.
	// Deciding with Enter in the note field leaves the field, so the next
	// keys are shortcuts, not note text.
	if id := eval[string](e, `document.activeElement ? document.activeElement.id : ""`); id == "adjudication-note" {
		t.Errorf("the note field keeps the focus after a decision: j/k would be typed into the next note")
	}
	for _, k := range []string{"k", "k", "j", "k"} {
		e.key(k)
	}
	e.waitJS("d1 selected by keyboard", `document.querySelector('button.queue-entry[data-doc="d1"]').getAttribute("aria-pressed") === "true"`, 5*time.Second)
	if txt := eval[string](e, `document.querySelector("#judgments").textContent`); !strings.Contains(txt, "yes (sentences 2)") ||
		!strings.Contains(txt, "no (sentences 1)") || !strings.Contains(txt, "contradicts") {
		t.Errorf("d1 side by side lacks the attributions or the contradiction: %s", txt)
	}
	// Deciding d2 shifted the rows after it up by one. Clicking a row
	// opens that row's item, not the one the row held when first drawn
	// (go-app keeps a row's first handler closure across re-renders).
	rowsAfter := eval[[]string](e, `[...document.querySelectorAll("button.queue-entry")].map(b => b.dataset.item)`)
	shifted := false
	for i, id := range rowsAfter {
		if i < len(rowsBefore) && rowsBefore[i] != id {
			shifted = true
		}
	}
	if len(rowsAfter) != 2 || !shifted {
		t.Fatalf("queue rows %v after deciding d2 (item %d) in %v: want two rows, one shifted", rowsAfter, heldItem, rowsBefore)
	}
	for i := len(rowsAfter) - 1; i >= 0; i-- {
		id := rowsAfter[i]
		e.do(fmt.Sprintf("click queue row %d", i+1), chromedp.Click(chromedp.CSS(fmt.Sprintf(`#adjudication nav.queue li:nth-child(%d) button.queue-entry`, i+1))))
		e.waitJS(fmt.Sprintf("row %d opens item %s", i+1, id), fmt.Sprintf(`document.querySelector("#adjudication").dataset.item === %q &&
			document.querySelector('button.queue-entry[data-item=%q]').getAttribute("aria-pressed") === "true"`, id, id), 5*time.Second)
	}
	var item api.AdjudicationItem
	if err := json.Unmarshal([]byte(eval[string](e, fmt.Sprintf(`fetch("/api/items/%d/adjudication").then(r => r.text())`, heldItem))), &item); err != nil {
		t.Fatal(err)
	}
	if item.Consensus.Status != "adjudicated" || item.Consensus.Relevance != 2 || len(item.Adjudications) != 1 ||
		item.Adjudications[0].Adjudicator != "researcher" || item.Adjudications[0].Note != "sentence 2 places it in the Venezuelan Andes" {
		t.Errorf("after adjudication: %+v %+v", item.Consensus, item.Adjudications)
	}
	e.do("dashboard after adjudication", chromedp.Navigate(e.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"][data-live="open"][data-state="ready"] #overlap-chart`)))
	e.waitJS("adjudicated count", `document.querySelector("#consensus-summary").textContent.includes("1 adjudicated")`, 10*time.Second)
	fullShot(e, "dash-06-dashboard-adjudicated")

	// The admin downloads consensus qrels and QUEST jsonl with the links
	// on the admin page (fetched in the page, with the admin's cookies).
	e.logout()
	e.login("admin")
	e.do("admin exports", chromedp.WaitVisible(chromedp.CSS(`#admin[data-state="ready"] #exports a#export-qrels-consensus`)))
	download := func(format string) (string, string) {
		type got struct {
			Status int    `json:"status"`
			ID     string `json:"id"`
			Body   string `json:"body"`
		}
		g := eval[got](e, `(async () => { const r = await fetch(document.querySelector("#export-`+format+`").href);
			return {status: r.status, id: r.headers.get("X-Export-Id") || "", body: await r.text()}; })()`)
		if g.Status != 200 || g.ID == "" {
			t.Fatalf("download %s: status %d, export id %q", format, g.Status, g.ID)
		}
		return g.Body, g.ID
	}
	qrels, qrelsID := download("qrels-consensus")
	want := "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 2\nq1 0 d4 0\nq2 0 d5 3\nq2 0 d6 1\n"
	if qrels != want {
		t.Errorf("qrels-consensus:\n%s\nwant:\n%s", qrels, want)
	}
	quest, _ := download("quest-judged")
	lines := strings.Split(strings.TrimSpace(quest), "\n")
	if len(lines) != 2 {
		t.Fatalf("quest-judged: %d lines, want 2:\n%s", len(lines), quest)
	}
	names := []string{"Definitely not relevant", "Likely not relevant", "Likely relevant", "Definitely relevant"}
	for i, line := range lines {
		var rec struct {
			Metadata struct {
				Relevance map[string][]string `json:"relevance_ratings"`
				Evidence  map[string][]string `json:"evidence_ratings"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("quest-judged line %d: %v", i+1, err)
		}
		docs := map[int][]string{0: {"d1", "d2", "d3", "d4"}, 1: {"d5", "d6"}}[i]
		for _, doc := range docs {
			l := dashLabels[doc]
			got := rec.Metadata.Relevance[doc]
			if len(got) != 3 || got[0] != names[l[0]] || got[1] != names[l[1]] || got[2] != names[l[2]] {
				t.Errorf("relevance_ratings[%s] = %v, want grades %v", doc, got, l)
			}
			if ev := rec.Metadata.Evidence[doc]; len(ev) != 3 {
				t.Errorf("evidence_ratings[%s] = %v", doc, ev)
			}
		}
	}
	e.do("list exports", chromedp.Click(chromedp.CSS(`#list-exports`)))
	e.waitJS("recorded exports", fmt.Sprintf(`document.querySelector("#export-snapshots") && document.querySelector("#export-snapshots").textContent.includes(%q)`, qrelsID), 10*time.Second)
	e.shot("dash-07-admin-exports")
	t.Logf("screenshots in %s", e.shots)
}

func ptr[T any](v T) *T { return &v }

// fullShot writes a screenshot of the whole page, not just the viewport
// (the dashboard is long).
func fullShot(e *env, name string) {
	ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(e.shots, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return
	}
	e.t.Logf("screenshot: %s", p)
}

// Issue 25: the project's consensus method (majority or Dawid–Skene) is
// set on the dashboard's quality panel with a select, saved through the
// quality API and shown as current after a reload.
func TestConsensusMethodSetOnDashboard(t *testing.T) {
	e := newEnv(t, 2)
	judgeFirstShared(t, e, 3, 2, nil, nil)
	e.login("researcher")
	e.do("dashboard", chromedp.Navigate(e.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"] #consensus-method`)))
	if got := eval[string](e, `document.querySelector("#consensus-current").dataset.method + " " + document.querySelector("#consensus-method").value`); got != "majority majority" {
		t.Errorf("current method and select before: %q, want majority", got)
	}
	e.do("choose Dawid–Skene", chromedp.SetValue(chromedp.CSS(`#consensus-method`), "dawid-skene"))
	eval[bool](e, `document.querySelector("#consensus-method").dispatchEvent(new Event("change", {bubbles: true}))`)
	e.do("save", chromedp.Click(chromedp.CSS(`#quality-save`)))
	e.waitJS("quality saved", `(document.querySelector("#quality-message") || {textContent: ""}).textContent === "Saved."`, 10*time.Second)
	if got := eval[string](e, `fetch("/api/projects/fixture/quality").then(r => r.text())`); !strings.Contains(got, `"consensus_method":"dawid-skene"`) {
		t.Errorf("quality settings after saving: %s", got)
	}
	e.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"] #consensus-method`)))
	e.waitJS("shown as current", `document.querySelector("#consensus-current").dataset.method === "dawid-skene" && document.querySelector("#consensus-method").value === "dawid-skene" &&
		document.querySelector("#consensus-current").textContent.includes("Dawid–Skene")`, 10*time.Second)
}
