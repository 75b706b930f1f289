//go:build !js

package e2e

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/server/judging"
	"boolpool/server/store"
)

// Issue 17, the judging page: a stable progress total with an exact done
// count, history and undo, drafts that survive a reload, instructions on
// the first visit with unambiguous NOT wording, skip with a reason and
// undo, and one grade keymap in every view. Screenshots go to
// web/e2e/testdata/screenshots/judge-*.png.

// shiftS presses Shift+S as a keyboard does: one keyDown that carries the
// text (so a page that cancels the keydown gets no character; chromedp's
// KeyEvent sends the character as an event of its own), then keyUp.
func (e *env) shiftS() {
	e.t.Helper()
	e.keyDownUp("press Shift+S", input.DispatchKeyEventParams{Key: "S", Code: "KeyS", Text: "S", UnmodifiedText: "s",
		Modifiers: int64(chromedp.ModifierShift), WindowsVirtualKeyCode: 83, NativeVirtualKeyCode: 83})
}

// progressNow reads the progress bar: done and total.
func (e *env) progressNow() (done, total int) {
	e.t.Helper()
	v := eval[[]int](e, `(() => { const p = document.querySelector(".progress-track");
		return p ? [+p.getAttribute("aria-valuenow"), +p.getAttribute("aria-valuemax")] : [-1, -1]; })()`)
	return v[0], v[1]
}

// judgeReady waits for the judging page to show an item.
func (e *env) judgeReady(what string) {
	e.t.Helper()
	e.do(what, chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
}

// startJudging signs user in, waits for the judging page to show an item
// and closes the instructions of a first visit.
func (e *env) startJudging(user string) {
	e.t.Helper()
	e.login(user)
	e.judgeReady("judge page")
	e.closeFirstVisitInstructions()
}

// closeFirstVisitInstructions closes the instructions the judging page
// opens on a user's first visit (if they open).
func (e *env) closeFirstVisitInstructions() {
	e.t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !eval[bool](e, `!!document.querySelector('#instructions[role="dialog"]')`) {
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.key("\x1b")
	e.waitJS("instructions closed", `!document.querySelector('#instructions[role="dialog"]')`, 5*time.Second)
}

// judgeByKeys presses keys on the item on screen, submits with Enter and
// waits for the next item; it returns the item judged.
func (e *env) judgeByKeys(keys ...string) string {
	e.t.Helper()
	item := e.itemOnScreen("#judge")
	for _, k := range keys {
		e.key(k)
	}
	e.key("\r")
	e.waitJS("next item after "+item, fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
	return item
}

func (e *env) waitSaved() {
	e.t.Helper()
	e.waitJS("saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 20*time.Second)
}

// latestJudgment is the user's latest judgment of an item (a skip too).
func latestJudgment(t *testing.T, st *store.Store, itemID, userID int64) store.Judgment {
	t.Helper()
	js, err := st.JudgmentsByItem(context.Background(), itemID)
	if err != nil {
		t.Fatal(err)
	}
	var out store.Judgment
	for _, j := range js {
		if j.UserID == userID {
			out = j
		}
	}
	if out.ID == 0 {
		t.Fatalf("no judgment of item %d by user %d", itemID, userID)
	}
	return out
}

// Defect 4: the total stays the same from item to item while other raters
// fill items (the server mixed a stale shared count of open items with a
// fresh count of the rater's own), and "done" is exactly what was judged.
func TestProgressTotalIsStableAndDoneExact(t *testing.T) {
	e := newEnv(t, 2) // six relevance items, two raters each
	a1 := e.fx.Users["annotator1"].ID
	e.startJudging("annotator1")
	_, total := e.progressNow()
	if total != 6 {
		t.Fatalf("total at the start: %d, want the fixture's 6 relevance items", total)
	}
	check := func(when string) {
		t.Helper()
		e.waitSaved()
		done, tot := e.progressNow()
		n := len(judgments(t, e.st, a1))
		if tot != total || done != n {
			e.shot("judge-progress-failure")
			t.Fatalf("%s: progress %d of %d; want %d of %d (judged %d)", when, done, tot, n, total, n)
		}
	}
	e.judgeByKeys("2", "p")
	check("after the first item")
	e.judgeByKeys("1", "n")
	check("after the second item")

	// Other raters judge meanwhile: annotator2 fills every item it can.
	svc := e.judge
	r2 := judging.Rater{ID: e.fx.Users["annotator2"].ID, Role: api.RoleAnnotator}
	q, err := svc.Queue(context.Background(), r2, "fixture", judging.QueueRequest{Kind: api.KindRelevance, N: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range q.Tasks {
		rel := 1
		if _, err := svc.Submit(context.Background(), r2, judging.JudgmentRequest{ClientID: judgingNewUUID(t), AuthorID: r2.ID,
			ItemID: task.ItemID, Kind: api.KindRelevance, Relevance: &rel, Evidence: api.EvidenceNone}); err != nil {
			t.Fatal(err)
		}
	}
	// Past the server's 20 s reuse of a rater's count.
	time.Sleep(21 * time.Second)
	e.judgeByKeys("3", "e")
	check("after others filled items, 21 s later")
	e.do("reload", chromedp.Reload())
	e.judgeReady("judge page after reload")
	check("after a reload")
	e.shot("judge-progress-stable")
}

// judgingNewUUID is a random UUID for judgments sent through the service.
func judgingNewUUID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Gap: history and undo. The recent items are listed with their labels and
// ids; Backspace goes back to them (even after the lease ran out) and a
// correction supersedes the first judgment.
func TestHistoryGoesBackAndCorrects(t *testing.T) {
	e := newEnv(t, 1)
	a1 := e.fx.Users["annotator1"].ID
	e.startJudging("annotator1")
	if !eval[bool](e, `document.querySelector("#history-back").disabled`) {
		t.Errorf("Back is enabled with nothing judged yet")
	}
	first := e.itemOnScreen("#judge")
	if txt := eval[string](e, `(document.querySelector("#item-id") || {textContent: ""}).textContent`); !strings.Contains(txt, first) {
		t.Errorf("the item id %s is not on the page (item label %q)", first, txt)
	}
	a := e.judgeByKeys("2", "p")
	b := e.judgeByKeys("0", "n")
	c := e.itemOnScreen("#judge")
	e.waitSaved()
	e.waitJS("history lists both", fmt.Sprintf(`document.querySelectorAll("#history li[data-item]").length === 2 &&
		document.querySelector('#history li[data-item="%s"]').textContent.includes("2 likely relevant") &&
		document.querySelector('#history li[data-item="%s"]').textContent.includes("0 definitely not relevant")`, a, b), 5*time.Second)
	e.shot("judge-history-panel")

	// The first item's lease runs out; going back still works.
	aID, _ := strconv.ParseInt(a, 10, 64)
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE assignments SET lease_expires_at = now() - interval '1 hour' WHERE item_id = $1`, aID); err != nil {
		t.Fatal(err)
	}
	e.key("\b")
	e.waitJS("back to the second item", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, b), 10*time.Second)
	e.do("its grade is shown", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="0"][aria-checked="true"]`)))
	e.key("\b")
	e.waitJS("back to the first item", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, a), 10*time.Second)
	e.do("first item's labels", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="2"][aria-checked="true"]`)))
	e.shot("judge-history-back")
	// Correct it: grade 3, complete evidence.
	e.key("3")
	e.key("e")
	e.key("\r")
	e.waitJS("back where the rater was", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, c), 10*time.Second)
	e.waitSaved()
	j := latestJudgment(t, e.st, aID, a1)
	if j.Relevance == nil || *j.Relevance != 3 || j.Evidence == nil || *j.Evidence != api.EvidenceComplete || j.Supersedes == nil {
		t.Errorf("the correction of item %s: relevance %v evidence %v supersedes %v; want 3, complete, superseding the first", a, j.Relevance, j.Evidence, j.Supersedes)
	}
	e.waitJS("history shows the correction", fmt.Sprintf(`document.querySelector('#history li[data-item="%s"]')?.textContent.includes("3 definitely relevant")`, a), 5*time.Second)
	e.shot("judge-history-corrected")
	// A row's "Item N" button opens that item too.
	e.do("open the second item from its row", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history li[data-item="%s"] button.history-open`, b))))
	e.waitJS("the second item opened from the list", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, b), 10*time.Second)
	e.do("its grade is shown again", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="0"][aria-checked="true"]`)))
}

// Gap: the form in progress survives a reload.
func TestDraftSurvivesReload(t *testing.T) {
	e := newEnv(t, 1)
	e.startJudging("annotator1")
	item := e.itemOnScreen("#judge")
	for _, k := range []string{"2", "p", "a", "j", " ", "y"} {
		e.key(k)
	}
	e.do("comment", chromedp.SendKeys(chromedp.CSS(`#comment`), "half done, reload"))
	e.do("reload", chromedp.Reload())
	e.judgeReady("judge page after reload")
	if got := e.itemOnScreen("#judge"); got != item {
		t.Fatalf("after the reload item %s is on screen, want %s", got, item)
	}
	e.do("grade restored", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="2"][aria-checked="true"]`)))
	e.do("evidence restored", chromedp.WaitVisible(chromedp.CSS(`.evidence button[data-evidence="p"][aria-checked="true"]`)))
	e.do("atom label restored", chromedp.WaitVisible(chromedp.CSS(`li.atom-row[data-atom="0"] button[data-satisfied="yes"][aria-pressed="true"]`)))
	e.waitJS("comment restored", `document.querySelector("#comment").value === "half done, reload"`, 5*time.Second)
	if got := eval[string](e, `document.querySelector('li.atom-row[data-atom="0"] .atom-count').textContent`); !strings.HasPrefix(got, "1 ") {
		t.Errorf("atom 0's sentences after the reload: %q, want 1", got)
	}
	e.shot("judge-draft-restored")
	e.key("\r")
	e.waitJS("next item", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
	if got := eval[string](e, `document.querySelector("#comment").value`); got != "" {
		t.Errorf("the next item's comment: %q", got)
	}
	// Written in a browser task of its own right after the next item is shown.
	e.waitJS("the submitted item's draft deleted from storage", `Object.keys(localStorage).filter(k => k.startsWith("boolpool.drafts.") && localStorage.getItem(k).includes('"`+item+`"')).length === 0`, 5*time.Second)
}

// Gap: the instructions open on a user's first visit of a task type, not
// again after; the NOT wording says whether the excluded property is
// present or absent.
func TestInstructionsOnFirstVisitAndNotWording(t *testing.T) {
	e := newEnv(t, 1)
	e.login("annotator1")
	e.judgeReady("judge page")
	e.do("instructions open by themselves", chromedp.WaitVisible(chromedp.CSS(`#instructions[role="dialog"] .example`)))
	if txt := eval[string](e, `document.querySelector("#instructions").textContent`); !strings.Contains(txt, "excluded property") {
		t.Errorf("the instructions do not explain NOT constraints as an excluded property: %s", txt)
	}
	e.shot("judge-instructions-first-visit")
	e.key("i")
	e.waitJS("closed by i", `!document.querySelector('#instructions[role="dialog"]')`, 5*time.Second)
	chips := eval[string](e, `[...document.querySelectorAll("li.atom-row.negated .satisfied button")].map(b => b.textContent).join(" | ")`)
	if !strings.Contains(chips, "excluded property present") || !strings.Contains(chips, "excluded property absent") {
		t.Errorf("the negated constraint's choices read %q, want 'excluded property present / absent'", chips)
	}
	e.shot("judge-not-wording")
	e.do("reload", chromedp.Reload())
	e.judgeReady("judge page after reload")
	time.Sleep(500 * time.Millisecond)
	if eval[bool](e, `!!document.querySelector('#instructions[role="dialog"]')`) {
		t.Errorf("the instructions open again on the second visit")
	}
	e.key("i")
	e.do("instructions on i", chromedp.WaitVisible(chromedp.CSS(`#instructions[role="dialog"]`)))
	// The paraphrase task type is a first visit of its own.
	e.do("paraphrase page", chromedp.Navigate(e.url+"/paraphrase/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#paraphrase[data-wasm="1"][data-state="ready"]`)))
	e.do("paraphrase instructions open by themselves", chromedp.WaitVisible(chromedp.CSS(`#instructions[role="dialog"]`)))
}

// Gap: skip with a key and a reason, undo by going back; disabled buttons
// look disabled.
func TestSkipWithReasonAndUndo(t *testing.T) {
	e := newEnv(t, 1)
	a1 := e.fx.Users["annotator1"].ID
	e.startJudging("annotator1")
	style := eval[[]string](e, `(() => { const s = getComputedStyle(document.querySelector("#history-back")); return [s.opacity, s.cursor]; })()`)
	if style[0] == "1" || style[1] != "not-allowed" {
		t.Errorf("the disabled Back button looks enabled: opacity %s, cursor %s", style[0], style[1])
	}
	item := e.itemOnScreen("#judge")
	e.shiftS()
	e.do("skip dialog", chromedp.WaitVisible(chromedp.CSS(`#skip-dialog`)))
	if !eval[bool](e, `document.querySelector("#skip-confirm").disabled`) {
		t.Errorf("Skip is enabled without a reason")
	}
	e.waitJS("reason field focused", `document.activeElement && document.activeElement.id === "skip-reason"`, 5*time.Second)
	e.do("reason", chromedp.SendKeys(chromedp.CSS(`#skip-reason`), "the document is in German"))
	e.shot("judge-skip-reason")
	e.do("confirm by Enter", chromedp.SendKeys(chromedp.CSS(`#skip-reason`), "\r"))
	e.waitJS("next item", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
	e.waitSaved()
	id, _ := strconv.ParseInt(item, 10, 64)
	if j := latestJudgment(t, e.st, id, a1); j.SkipReason != "the document is in German" {
		t.Errorf("skip reason stored: %q", j.SkipReason)
	}
	e.waitJS("history shows the skip", fmt.Sprintf(`document.querySelector('#history li[data-item="%s"]')?.textContent.includes("skipped: the document is in German")`, item), 5*time.Second)
	e.shot("judge-skipped")
	// Undo: back to the skipped item and judge it.
	e.key("\b")
	e.waitJS("back to the skipped item", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, item), 10*time.Second)
	e.judgeByKeys("3", "e")
	e.waitSaved()
	if j := latestJudgment(t, e.st, id, a1); j.SkipReason != "" || j.Relevance == nil || *j.Relevance != 3 {
		t.Errorf("after undoing the skip: reason %q relevance %v, want a grade 3 judgment", j.SkipReason, j.Relevance)
	}
}

// Gap: one grade keymap: keys 0–3 give grades 0–3 on the judging page as
// on the adjudication page, and both list the same line under ?.
func TestOneGradeKeymapEverywhere(t *testing.T) {
	e := newEnv(t, 1)
	e.startJudging("annotator1")
	e.key("0")
	e.do("grade 0 by key 0", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="0"][aria-checked="true"]`)))
	e.key("3")
	e.do("grade 3 by key 3", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="3"][aria-checked="true"]`)))
	e.key("?")
	e.do("keymap", chromedp.WaitVisible(chromedp.CSS(`#keymap[role="dialog"]`)))
	judgeLine := eval[string](e, `[...document.querySelectorAll("#keymap tr")].map(r => r.textContent).find(t => t.includes("relevance")) || ""`)
	e.shot("judge-keymap")
	if !strings.HasPrefix(judgeLine, "0 1 2 3") {
		t.Errorf("the judging keymap's grade line: %q", judgeLine)
	}
	e.logout()
	e.login("researcher")
	e.do("adjudication page", chromedp.Navigate(e.url+"/adjudicate/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#adjudication[data-wasm="1"]`)))
	e.key("?")
	e.do("adjudication keymap", chromedp.WaitVisible(chromedp.CSS(`#keymap[role="dialog"]`)))
	adjLine := eval[string](e, `[...document.querySelectorAll("#keymap tr")].map(r => r.textContent).find(t => t.includes("relevance")) || ""`)
	if adjLine != judgeLine {
		t.Errorf("grade keys differ: judging %q, adjudication %q", judgeLine, adjLine)
	}
	e.shot("judge-keymap-adjudication")
}

// Issue 25: at 1400×900 the skip dialog opened below the fold (under the
// grade, evidence and comment fields, at the foot of the form); it must
// open in view, whole, and the page must not have scrolled to show it. The
// fixture's form is short, so the test makes it as tall as a real one
// (longer labels, a warning, a larger font) by giving the relevance
// choices a minimum height.
func TestSkipDialogInViewAt1400x900(t *testing.T) {
	e := newEnv(t, 1)
	e.do("1400×900 window", chromedp.EmulateViewport(1400, 900))
	e.startJudging("annotator1")
	eval[bool](e, `(document.querySelector(".labels-panel .relevance").style.minHeight = "700px", window.scrollTo(0, 0), true)`)
	e.shiftS()
	e.do("skip dialog", chromedp.WaitVisible(chromedp.CSS(`#skip-dialog`)))
	e.waitJS("reason field focused", `document.activeElement && document.activeElement.id === "skip-reason"`, 5*time.Second)
	r := eval[[]float64](e, `(() => { const r = document.querySelector("#skip-dialog").getBoundingClientRect();
		return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth, scrollY]; })()`)
	if r[0] < 0 || r[1] > r[4] || r[2] < 0 || r[3] > r[5] {
		t.Errorf("skip dialog at top %.0f bottom %.0f left %.0f right %.0f, outside the %.0f×%.0f viewport", r[0], r[1], r[2], r[3], r[5], r[4])
	}
	if r[6] != 0 {
		t.Errorf("the page scrolled by %.0f px to show the skip dialog", r[6])
	}
	e.shot("judge-skip-1400x900")
}
