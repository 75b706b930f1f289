//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
)

// TestReviewFeedbackAndItemBrowser (issue 25): annotator1 judges an item
// "definitely relevant" in the browser and annotator2 says "definitely
// not"; the researcher corrects annotator1's judgment on the review page
// with a note; the item browser, filtered by disagreement, lists the item
// and opens it with both judgments and the review; annotator1 then sees
// the note under the item in the judging history, and the feedback page.
func TestReviewFeedbackAndItemBrowser(t *testing.T) {
	e := newEnv(t, 2)
	ctx := context.Background()
	const note = "Check the NOT constraint against the document's last sentence."

	e.login("annotator1")
	e.do("judge page", chromedp.Navigate(e.url+"/judge/fixture"))
	e.judgeReady("first item")
	e.closeFirstVisitInstructions()
	item := e.judgeByKeys("3", "e")
	e.waitSaved()
	itemID, err := strconv.ParseInt(item, 10, 64)
	if err != nil {
		t.Fatalf("item on screen %q", item)
	}
	a1 := latestJudgment(t, e.st, itemID, e.fx.Users["annotator1"].ID)

	// annotator2 disagrees (through the API).
	a2 := dashLogin(t, e.url, "annotator2")
	var q api.Queue
	if st := a2.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 10}, &q); st != 200 {
		t.Fatalf("annotator2 queue: %d", st)
	}
	leased := false
	for _, tk := range q.Tasks {
		leased = leased || tk.ItemID == itemID
	}
	if !leased {
		t.Fatalf("annotator2 was not given item %d", itemID)
	}
	if st := a2.Do("POST", "/api/judgments", api.JudgmentRequest{ClientID: "00000000-0000-4000-8000-000000009201", AuthorID: a2.ID,
		ItemID: itemID, Kind: api.KindRelevance, Relevance: ptr(0), Evidence: api.EvidenceNone, TimeSpentMs: 800}, nil); st != 201 {
		t.Fatalf("annotator2 judges: %d", st)
	}
	e.logout()

	// The researcher corrects annotator1's judgment with a note.
	e.login("researcher")
	e.do("review page", chromedp.Navigate(e.url+"/review/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-wasm="1"] #review-annotators`)))
	e.do("choose annotator1", chromedp.Click(chromedp.CSS(`button.review-annotator[data-annotator="annotator1"]`)))
	entry := fmt.Sprintf(`#review-queue li.review-entry[data-judgment="%d"]`, a1.ID)
	e.waitJS("annotator1's judgment in the queue", `document.querySelector('`+entry+`')`, 10*time.Second)
	if got := eval[string](e, `document.querySelector('`+entry+` .review-grade').textContent`); got != "3 definitely relevant" {
		t.Errorf("queue shows grade %q", got)
	}
	e.do("open the correction", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#correct-open-%d`, a1.ID))))
	e.waitJS("correction form", fmt.Sprintf(`document.querySelector("#correct-grade-%d")`, a1.ID), 5*time.Second)
	eval[bool](e, fmt.Sprintf(`(() => { const s = document.querySelector("#correct-grade-%d"); s.value = "0";
		s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, a1.ID))
	e.do("type the note", chromedp.SendKeys(chromedp.CSS(fmt.Sprintf(`#correct-note-%d`, a1.ID)), note))
	e.shot("i25-review-correct")
	e.do("send the correction", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#correct-send-%d`, a1.ID))))
	e.waitJS("the judgment leaves the queue", `!document.querySelector('`+entry+`') && /corrected/.test((document.querySelector("#review-message") || {}).textContent || "")`, 10*time.Second)

	var verdict, stored string
	var rel int
	if err := e.st.Pool().QueryRow(ctx, `SELECT verdict, relevance, note FROM judgment_reviews WHERE judgment_id = $1`, a1.ID).Scan(&verdict, &rel, &stored); err != nil {
		t.Fatalf("stored review: %v", err)
	}
	if verdict != api.ReviewCorrect || rel != 0 || stored != note {
		t.Errorf("stored review: %s %d %q", verdict, rel, stored)
	}
	if j := latestJudgment(t, e.st, itemID, e.fx.Users["annotator1"].ID); j.ID != a1.ID || *j.Relevance != 3 {
		t.Errorf("the correction changed annotator1's judgment: %+v", j)
	}

	// The item browser, filtered by disagreement, lists the item; opened,
	// it shows both judgments and the correction.
	e.do("item browser", chromedp.Navigate(e.url+"/browse/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#browse[data-wasm="1"] #browse-filters`)))
	e.waitJS("the unfiltered list", `document.querySelectorAll("#browse-items tbody tr").length === 6`, 10*time.Second)
	eval[bool](e, `(() => { const s = document.querySelector("#f-agreement"); s.value = "disagree";
		s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
	e.do("filter", chromedp.Click(chromedp.CSS(`#browse-apply`)))
	e.waitJS("the disagreeing items", `document.querySelectorAll("#browse-items tbody tr").length === 1 && location.search.includes("agreement=disagree")`, 10*time.Second)
	rows := eval[[]string](e, `[...document.querySelectorAll("#browse-items tbody tr")].map(r => r.dataset.item + " " + r.dataset.disagreeing + " " + r.querySelector(".votes").textContent)`)
	if want := item + " true annotator1 3 · annotator2 0"; len(rows) != 1 || rows[0] != want {
		t.Errorf("disagreeing rows %q, want [%s]", rows, want)
	}
	e.do("open the item", chromedp.Click(chromedp.CSS(fmt.Sprintf(`button.browse-open[data-item="%d"]`, itemID))))
	e.waitJS("the item's judgments", fmt.Sprintf(`document.querySelector('#item-detail[data-item="%d"]') && document.querySelectorAll("#item-judgments .item-judgment").length === 2`, itemID), 10*time.Second)
	detail := eval[string](e, `document.querySelector("#item-detail").textContent`)
	for _, want := range []string{"annotator1: 3 definitely relevant", "annotator2: 0 definitely not relevant", "corrected to 0 definitely not relevant by researcher", note, "adjudicated"} {
		if !strings.Contains(detail, want) {
			t.Errorf("item view lacks %q: %s", want, detail)
		}
	}
	e.shot("i25-item-browser")
	e.logout()

	// annotator1 sees the note under the item in the history.
	e.login("annotator1")
	e.do("judge page again", chromedp.Navigate(e.url+"/judge/fixture"))
	e.judgeReady("judging page")
	e.waitJS("the review in the history", fmt.Sprintf(`document.querySelector('#history li[data-item="%d"] .history-review .review-note')`, itemID), 10*time.Second)
	if got := eval[string](e, fmt.Sprintf(`document.querySelector('#history li[data-item="%d"] .history-review').textContent`, itemID)); got != "Corrected to 0 definitely not relevant by researcher "+note {
		t.Errorf("history shows %q", got)
	}
	if got := eval[string](e, `document.querySelector("#feedback-received").textContent`); got != "Feedback received (1)" {
		t.Errorf("feedback count %q", got)
	}
	e.shot("i25-history-feedback")
	e.do("feedback page", chromedp.Click(chromedp.CSS(`#feedback-received a`)))
	e.waitJS("the feedback list", `document.querySelector('#feedback[data-wasm="1"] #feedback-list .review-note')`, 10*time.Second)
	if got := eval[string](e, `document.querySelector("#feedback-list .review-note").textContent`); got != note {
		t.Errorf("feedback page note %q", got)
	}
}
