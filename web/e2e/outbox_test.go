//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/server/judging"
	"boolpool/web"
)

// blockJudgments makes POST /api/judgments fail in the browser (as if the
// network dropped just for it), or lifts that.
func (e *env) blockJudgments(on bool) { e.block("/api/judgments", on) }

// block makes the browser's requests to URLs under path (a pattern with
// * after the server's URL) fail, or lifts that (for every pattern).
func (e *env) block(path string, on bool) {
	e.t.Helper()
	var pats []*network.BlockPattern
	if on {
		pats = []*network.BlockPattern{{URLPattern: e.url + path, Block: true}}
	}
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: pats}); err != nil {
		e.t.Fatalf("block %s %v: %v", path, on, err)
	}
}

// Issue 11, defect 4: annotator2's unsent judgment was sent with the next
// sign-in's session and stored as annotator3's. Now sign-out warns, the
// judgment stays with its author in the browser, the next user's session
// never sends it, and it goes out as its author's when they sign in again.
func TestUnsentJudgmentsStayWithTheirAuthor(t *testing.T) {
	e := newEnv(t, 2) // two raters per item: annotator3 gets annotator2's items too
	a2, a3 := e.fx.Users["annotator2"].ID, e.fx.Users["annotator3"].ID

	e.login("annotator2")
	e.do("judge page", chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.closeFirstVisitInstructions()
	e.blockJudgments(true)
	item := e.itemOnScreen("#judge")
	e.key("2")
	e.key("p")
	e.do("comment and submit", chromedp.SendKeys(chromedp.CSS(`#comment`), "about this item only"), chromedp.Click(chromedp.CSS(`#submit`)))
	e.waitJS("queued", `document.querySelector("#judge").dataset.pending === "1"`, 10*time.Second)
	// The next item starts with an empty comment box (issue 17: go-app
	// left the previous item's comment in it).
	e.waitJS("next item", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
	if got := eval[string](e, `document.querySelector("#comment").value`); got != "" {
		t.Errorf("the next item's comment box holds %q", got)
	}

	// Sign-out warns and says how many are unsent.
	e.do("sign out", chromedp.Click(chromedp.CSS(`#logout`)), chromedp.WaitVisible(chromedp.CSS(`#logout-confirm`)))
	if txt := eval[string](e, `document.querySelector("#logout-confirm").textContent`); !strings.Contains(txt, "1 judgment(s)") || !strings.Contains(txt, "annotator2") {
		t.Errorf("sign-out warning %q: want the count and the author", txt)
	}
	e.shot("outbox-01-signout-warning")
	// "Stay signed in" keeps the session; then sign out anyway.
	e.do("stay", chromedp.Click(chromedp.CSS(`#logout-cancel`)))
	e.waitJS("warning closed", `!document.querySelector("#logout-confirm") && location.pathname.startsWith("/judge/")`, 5*time.Second)
	e.do("sign out anyway", chromedp.Click(chromedp.CSS(`#logout`)), chromedp.WaitVisible(chromedp.CSS(`#logout-confirm`)),
		chromedp.Click(chromedp.CSS(`#logout-confirm-yes`)))
	e.waitJS("login page", `location.pathname === "/login"`, 10*time.Second)
	e.blockJudgments(false)

	// annotator3 signs in on the same browser, with the network back.
	e.login("annotator3")
	e.do("annotator3's judge page", chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.closeFirstVisitInstructions()
	time.Sleep(2500 * time.Millisecond) // two sync-loop ticks
	if got := eval[string](e, `document.querySelector("#judge").dataset.pending`); got != "0" {
		t.Errorf("annotator3 sees %s pending, want 0", got)
	}
	if js := judgments(t, e.st, a3); len(js) != 0 {
		t.Fatalf("annotator3 has %d judgments (item %d), want none: annotator2's was sent with their session", len(js), js[0].ItemID)
	}
	if js := judgments(t, e.st, a2); len(js) != 0 {
		t.Fatalf("annotator2 has %d judgments before signing in again", len(js))
	}
	if n := eval[int](e, fmt.Sprintf(`JSON.parse(localStorage.getItem("boolpool.outbox.v2.%d") || "[]").length`, a2)); n != 1 {
		t.Errorf("annotator2's outbox holds %d, want 1", n)
	}
	e.shot("outbox-02-other-user")
	// annotator3 has nothing unsent: sign-out does not ask.
	e.do("annotator3 signs out", chromedp.Click(chromedp.CSS(`#logout`)))
	e.waitJS("login page", `location.pathname === "/login"`, 10*time.Second)

	// annotator2 is back: the judgment is sent, as theirs.
	e.login("annotator2")
	e.do("annotator2's judge page", chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"]`)))
	deadline := time.Now().Add(15 * time.Second)
	for len(judgments(t, e.st, a2)) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	js := judgments(t, e.st, a2)
	if len(js) != 1 || strconv.FormatInt(js[0].ItemID, 10) != item || js[0].Relevance == nil || *js[0].Relevance != 2 || js[0].Comment != "about this item only" {
		t.Fatalf("annotator2's judgments %+v, want item %s relevance 2", js, item)
	}
	e.waitJS("saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 10*time.Second)
	if n := len(judgments(t, e.st, a3)); n != 0 {
		t.Errorf("annotator3 has %d judgments", n)
	}
}

// Issue 11, defect 12: a judgment the server refuses (here a comment over
// the limit, queued by a page without one) is named with its item and the
// server's reason, and can be opened, corrected and sent; the comment box
// now has the server's limit and a byte counter.
func TestRefusedJudgmentIsNamedAndRecoverable(t *testing.T) {
	e := newEnv(t, 1)
	a1 := e.fx.Users["annotator1"].ID
	svc := e.judge
	q, err := svc.Queue(context.Background(), judging.Rater{ID: a1, Role: api.RoleAnnotator}, "fixture", judging.QueueRequest{Kind: api.KindRelevance, N: 1})
	if err != nil || len(q.Tasks) != 1 {
		t.Fatalf("lease: %v %+v", err, q)
	}
	task := q.Tasks[0]
	what := task.Query.Text + " · " + task.Document.Title
	rel := 2
	long := strings.Repeat("very long comment ", 300) // 5,400 bytes
	entry := []web.OutboxEntry{{
		Req: api.JudgmentRequest{ClientID: "00000000-0000-4000-8000-000000000777", AuthorID: a1, ItemID: task.ItemID, Kind: api.KindRelevance,
			Relevance: &rel, Evidence: api.EvidencePartial, Comment: long, TimeSpentMs: 1000},
		Item: what, QueuedAt: time.Now(), NextTry: time.Now(),
	}}
	raw, _ := json.Marshal(entry)
	e.do("open the site", chromedp.Navigate(e.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`#login[data-wasm="1"]`)))
	eval[bool](e, fmt.Sprintf(`localStorage.setItem(%q, %q), true`, web.OutboxKey(a1), raw))

	e.login("annotator1")
	e.do("refused list", chromedp.WaitVisible(chromedp.CSS(`#refused .refused-item`)))
	e.closeFirstVisitInstructions()
	txt := eval[string](e, `document.querySelector("#refused").textContent`)
	for _, want := range []string{fmt.Sprintf("Item %d", task.ItemID), task.Query.Text, task.Document.Title, "comment: longer than 4000 bytes"} {
		if !strings.Contains(txt, want) {
			t.Errorf("refused list %q lacks %q", txt, want)
		}
	}
	if badge := eval[string](e, `document.querySelector("#sync-status").textContent`); !strings.Contains(badge, "1 refused") {
		t.Errorf("badge %q", badge)
	}
	e.shot("refused-01-named")

	// Open it: the form is filled with what was typed, to correct.
	e.do("open and correct", chromedp.Click(chromedp.CSS(`#refused .refused-item a`)),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"] #form-message`)))
	if got := eval[int](e, `document.querySelector("#comment").value.length`); got != len(long) {
		t.Errorf("comment box holds %d characters, want the refused %d", got, len(long))
	}
	if got := eval[int](e, `document.querySelector("#comment").maxLength`); got != api.MaxComment {
		t.Errorf("comment maxlength %d, want %d", got, api.MaxComment)
	}
	if got := eval[string](e, `document.querySelector("#comment-count").textContent`); got != fmt.Sprintf("%d / 4000 bytes", len(long)) {
		t.Errorf("counter %q", got)
	}
	// Submitting it unchanged is stopped in the page (bytes are checked;
	// maxlength counts UTF-16 units and only limits typing).
	e.do("submit too long", chromedp.Click(chromedp.CSS(`#submit`)))
	e.waitJS("too long message", fmt.Sprintf(`document.querySelector("#form-message").textContent.includes("%d bytes")`, len(strings.TrimSpace(long))), 5*time.Second)
	// Multi-byte text within maxlength but over the byte limit is stopped too.
	eval[bool](e, `(() => { const c = document.querySelector("#comment"); c.value = "é".repeat(2500); c.dispatchEvent(new Event("input", {bubbles: true})); return true })()`)
	e.do("submit multibyte", chromedp.Click(chromedp.CSS(`#submit`)))
	e.waitJS("bytes message", `document.querySelector("#form-message").textContent.includes("5000 bytes")`, 5*time.Second)
	e.shot("refused-02-correcting")
	eval[bool](e, `(() => { const c = document.querySelector("#comment"); c.value = "short now"; c.dispatchEvent(new Event("input", {bubbles: true})); return true })()`)
	e.do("submit corrected", chromedp.Click(chromedp.CSS(`#submit`)))
	e.waitJS("saved", `document.querySelector("#sync-status").dataset.state === "saved" && !document.querySelector("#refused")`, 15*time.Second)
	js := judgments(t, e.st, a1)
	if len(js) != 1 || js[0].ItemID != task.ItemID || js[0].Comment != "short now" || js[0].Relevance == nil || *js[0].Relevance != 2 {
		t.Errorf("stored %+v, want the corrected judgment of item %d", js, task.ItemID)
	}
	e.shot("refused-03-saved")
}
