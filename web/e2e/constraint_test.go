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
)

// constraintTruth is what the fixture's documents (by title) say about
// each atom of its two queries.
var constraintTruth = map[string]map[string]string{
	"Birds of the Venezuelan Andes": {"Andean tyrannulet": "y", "Mérida flowerpiercer": "y", "Scarlet ibis": "n", "Hoatzin": "n"},
	"birds of Colombia":             {"Andean tyrannulet": "y", "Mérida flowerpiercer": "n", "Scarlet ibis": "y", "Hoatzin": "n"},
	"Films set in Paris":            {"Amélie": "y", "Ratatouille": "y"},
	"comedy films":                  {"Amélie": "y", "Ratatouille": "y"},
}

// secondBrowser is another headless Chromium with its own profile (its
// own cookies, so a second user stays signed in), sharing e's server.
func secondBrowser(t *testing.T, e *env) *env {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(requireBrowser(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start the second chromium: %v", err)
	}
	r := *e
	r.ctx = ctx
	return &r
}

// TestConstraintJudgingDerivedQrelsLive: a researcher pools constraint
// items from the dashboard; two annotators (r = 2) judge them in the
// compact constraint page with the keyboard only (j and space mark a
// sentence as evidence, y / n / u answer and move on) while the
// researcher's dashboard, in a second browser, shows the derived qrels of
// both queries growing; the second annotator's "unsure" splits one vote,
// which turns a derived label back to unknown; the admin's qrels-consensus
// download with derived qrels marks every derived line.
func TestConstraintJudgingDerivedQrelsLive(t *testing.T) {
	e := newEnv(t, 2)
	r := secondBrowser(t, e)
	// Two runs, for the leaderboard over derived qrels.
	if err := judgingtest.AddRuns(context.Background(), e.st, e.fx); err != nil {
		t.Fatal(err)
	}

	// The researcher opens the dashboard and pools constraint items.
	r.login("researcher")
	r.do("dashboard", chromedp.Navigate(r.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"] #derived[data-loaded="true"] #pool-constraints`)))
	r.do("pool constraint items", chromedp.Click(chromedp.CSS(`#pool-constraints`)))
	r.waitJS("pooled", `(document.querySelector("#pool-message") || {textContent: ""}).textContent.startsWith("12 constraint items created")`, 15*time.Second)
	r.waitJS("derived table lists both queries", `document.querySelector("#derived-q1") && document.querySelector("#derived-q2") &&
		document.querySelector("#derived-summary").textContent.startsWith("12 constraint items, 0 decided")`, 15*time.Second)
	r.shot("constraint-01-dashboard-pooled")
	// The leaderboard over derived qrels, following the constraint
	// judgments live (no labels yet).
	r.do("leaderboard over derived qrels", chromedp.SetValue(chromedp.CSS(`#leaderboard-qrels`), "derived"))
	eval[bool](r, `document.querySelector("#leaderboard-qrels").dispatchEvent(new Event("change", {bubbles: true}))`)
	r.waitJS("derived leaderboard loaded", `!!document.querySelector('#leaderboard-view[data-qrels="derived"] #leaderboard-qrels-summary[data-labels="0"]')`, 15*time.Second)
	bm25MRR := `(document.querySelector('#leaderboard-view tr[data-run="bm25"] td[data-measure="mrr@10"]') || {dataset: {}}).dataset.mean`

	derived := func(q string) map[string]string {
		return eval[map[string]string](r, `(() => { const d = (document.querySelector("#derived-`+q+`") || {dataset: {}}).dataset;
			return {relevant: d.relevant || "", nonrelevant: d.nonrelevant || "", unknown: d.unknown || ""}; })()`)
	}

	// judge answers n items on the constraint page with the keyboard;
	// answer(atom, title) gives the key. It returns the answers given.
	judge := func(n int, answer func(atom, title string) string) int {
		t.Helper()
		done := 0
		for done < n {
			e.waitJS("a constraint item or the end", `document.querySelector('#constraint[data-state="ready"] #constraint-text') ||
				document.querySelector('#constraint[data-state="empty"]')`, 20*time.Second)
			if eval[bool](e, `!!document.querySelector('#constraint[data-state="empty"]')`) {
				break
			}
			item := e.itemOnScreen("#constraint")
			atom := eval[string](e, `document.querySelector("#constraint-text").textContent`)
			title := eval[string](e, `document.querySelector("#doc-title").textContent`)
			key := answer(atom, title)
			if key == "" {
				t.Fatalf("no answer for %q / %q", atom, title)
			}
			// j moves to the second sentence, space marks it as evidence.
			e.key("j")
			e.key(" ")
			e.waitJS("sentence marked", `document.querySelector("#s-1.marked") && document.querySelector("#evidence-count").textContent.startsWith("1 ")`, 5*time.Second)
			e.key(key)
			e.waitJS("next item", `(document.querySelector("#constraint") || {dataset: {}}).dataset.item !== "`+item+`"`, 20*time.Second)
			done++
		}
		return done
	}
	truth := func(atom, title string) string { return constraintTruth[atom][title] }

	// annotator1 opens the compact page: the instructions open on the
	// first visit, i closes them, ? lists the three keys.
	e.login("annotator1")
	e.do("constraint page", chromedp.Navigate(e.url+"/constraint/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#constraint[data-wasm="1"][data-state="ready"] #constraint-text`)))
	e.waitJS("instructions", `document.querySelector("#instructions .example")`, 10*time.Second)
	e.key("i")
	e.waitJS("instructions closed", `!document.querySelector("#instructions .example")`, 5*time.Second)
	e.key("?")
	e.waitJS("keymap", `(document.querySelector("#keymap") || {textContent: ""}).textContent.includes("y n u")`, 5*time.Second)
	e.shot("constraint-02-keymap")
	e.key("?")
	e.waitJS("keymap closed", `!document.querySelector("#keymap.dialog")`, 5*time.Second)
	e.shot("constraint-03-item")

	if got := judge(10, truth); got != 10 {
		t.Fatalf("annotator1 judged %d, want 10", got)
	}
	// The dashboard follows without a reload: both queries already have
	// derived qrels.
	r.waitJS("10 labels on the dashboard", `document.querySelector("#derived").dataset.judged === "10"`, 20*time.Second)
	mid1, mid2 := derived("q1"), derived("q2")
	t.Logf("after 10 constraint judgments: q1 %v, q2 %v", mid1, mid2)
	if mid1["relevant"]+mid1["nonrelevant"]+mid1["unknown"] == "000" || mid2["relevant"]+mid2["nonrelevant"]+mid2["unknown"] == "000" {
		t.Errorf("derived qrels of both queries should have grown: q1 %v, q2 %v", mid1, mid2)
	}
	r.shot("constraint-04-dashboard-growing")

	if got := judge(10, truth); got != 2 {
		t.Fatalf("annotator1 judged %d more, want 2", got)
	}
	// All twelve labels: q1 = Andes AND NOT Colombia has d2 relevant and
	// d1, d3, d4 not; q2 = Paris AND comedy has d5 and d6.
	r.waitJS("12 labels", `document.querySelector("#derived").dataset.judged === "12"`, 20*time.Second)
	r.waitJS("q1 and q2 complete", `document.querySelector("#derived-q1").dataset.relevant === "1" && document.querySelector("#derived-q1").dataset.nonrelevant === "3" &&
		document.querySelector("#derived-q2").dataset.relevant === "2"`, 20*time.Second)
	// The derived leaderboard followed: 6 labels; bm25 ranks q1's d2 third
	// and q2's d5 first, MRR@10 (1/3 + 1) / 2.
	r.waitJS("derived leaderboard scored", `document.querySelector("#leaderboard-qrels-summary").dataset.labels === "6" && `+bm25MRR+` === "0.666667"`, 20*time.Second)

	// annotator2 judges every item too, unsure about the Hoatzin and the
	// Venezuelan Andes: that vote splits, the label is unsure and q1's d4
	// becomes unknown again.
	e.logout()
	e.login("annotator2")
	e.do("constraint page (annotator2)", chromedp.Navigate(e.url+"/constraint/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#constraint[data-wasm="1"][data-state="ready"] #constraint-text`)))
	e.waitJS("instructions", `document.querySelector("#instructions .example")`, 10*time.Second)
	e.key("i")
	split := func(atom, title string) string {
		if atom == "Birds of the Venezuelan Andes" && title == "Hoatzin" {
			return "u"
		}
		return truth(atom, title)
	}
	if got := judge(20, split); got != 12 {
		t.Fatalf("annotator2 judged %d, want 12", got)
	}
	r.waitJS("q1 d4 unknown after the split vote", `document.querySelector("#derived-q1").dataset.unknown === "1" &&
		document.querySelector("#derived-q1").dataset.nonrelevant === "2" && document.querySelector("#derived-q1").dataset.relevant === "1"`, 20*time.Second)
	r.waitJS("derived leaderboard after the split vote", `document.querySelector("#leaderboard-qrels-summary").dataset.labels === "5"`, 20*time.Second)
	r.shot("constraint-05-dashboard-final")

	// Every judgment kept its evidence sentence.
	var withEvidence int
	if err := e.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM judgments WHERE kind = 'constraint' AND payload->'sentences' = '[1]'`).Scan(&withEvidence); err != nil {
		t.Fatal(err)
	}
	if withEvidence != 24 {
		t.Errorf("%d constraint judgments with sentence 1 as evidence, want 24", withEvidence)
	}

	// A direct relevance judgment that the constraint labels contradict
	// (d1 satisfies "birds of Colombia", so it cannot be relevant to q1)
	// is flagged with its logical reason on the dashboard and in the
	// adjudication queue.
	// annotator1 (whose sign-in page leased the first relevance items)
	// judges q1/d1.
	a1 := dashLogin(t, e.url, "annotator1")
	var q api.Queue
	if st := a1.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 10}, &q); st != 200 {
		t.Fatalf("queue: status %d", st)
	}
	var d1 int64
	for _, task := range q.Tasks {
		if task.Document != nil && task.Document.ExtID == "d1" {
			d1 = task.ItemID
		}
	}
	if d1 == 0 {
		t.Fatalf("q1/d1 is not in annotator1's queue: %+v", q.Tasks)
	}
	var jr api.JudgmentResponse
	if st := a1.Do("POST", "/api/judgments", api.JudgmentRequest{ClientID: "00000000-0000-4000-8000-000000013001", AuthorID: a1.ID, ItemID: d1,
		Kind: api.KindRelevance, Relevance: ptr(3), Evidence: api.EvidencePartial}, &jr); st != 201 {
		t.Fatalf("relevance judgment: status %d", st)
	}
	r.waitJS("flag on the dashboard", `document.querySelector('#derived #consistency-flags[data-count="1"] .flag[data-doc="d1"][data-query="q1"]') &&
		document.querySelector("#derived #consistency-flags .reason").textContent.startsWith("judged relevant to")`, 20*time.Second)
	r.waitJS("conflict counted", `document.querySelector("#derived-q1 td:nth-of-type(6)").textContent === "1"`, 5*time.Second)
	r.shot("constraint-06-dashboard-flag")
	r.do("adjudication queue", chromedp.Navigate(r.url+"/adjudicate/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#adjudication[data-wasm="1"] #consistency .flag[data-doc="d1"]`)))
	reason := eval[string](r, `document.querySelector("#consistency .flag .reason").textContent`)
	t.Logf("adjudication queue flag: %s", reason)
	if !strings.Contains(reason, "constraint judgments say not relevant") {
		t.Errorf("flag reason %q does not give the logical reason", reason)
	}
	r.shot("constraint-07-adjudication-flag")

	// The admin downloads the consensus qrels with derived qrels, marked.
	r.logout()
	r.login("admin")
	r.do("admin exports", chromedp.WaitVisible(chromedp.CSS(`#admin[data-state="ready"] #exports a#export-qrels-consensus`)))
	r.do("choose derived qrels", chromedp.SetValue(chromedp.CSS(`#export-qrels`), "derived"))
	eval[bool](r, `document.querySelector("#export-qrels").dispatchEvent(new Event("change", {bubbles: true}))`)
	r.waitJS("derived link", `document.querySelector("#export-qrels-consensus").href.endsWith("?qrels=derived")`, 5*time.Second)
	type got struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	g := eval[got](r, `(async () => { const r = await fetch(document.querySelector("#export-qrels-consensus").href);
		return {status: r.status, body: await r.text()}; })()`)
	want := "q1 0 d1 0 derived\nq1 0 d2 1 derived\nq1 0 d3 0 derived\nq2 0 d5 1 derived\nq2 0 d6 1 derived\n"
	if g.Status != 200 || g.Body != want {
		t.Errorf("qrels-consensus?qrels=derived: status %d\n%s\nwant\n%s", g.Status, g.Body, want)
	}
	if strings.Contains(g.Body, "d4") {
		t.Error("the unknown pair q1/d4 was exported")
	}
}
