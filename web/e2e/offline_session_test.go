//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"boolpool/server/store"
)

// Issue 25: signing out while offline, an offline reload, a disabled
// account. "Offline" blocks every /api/ request in the browser (the pages
// themselves still load, as from a cache).

// judgeOneOffline starts judging as annotator1, goes offline and judges
// one item, which waits in the outbox; it returns annotator1's id and the
// item.
func judgeOneOffline(t *testing.T) (e *env, a1 int64, item string) {
	e = newEnv(t, 1)
	a1 = e.fx.Users["annotator1"].ID
	e.startJudging("annotator1")
	e.offline(true)
	item = e.judgeByKeys("2", "p")
	e.waitJS("queued", `document.querySelector("#judge").dataset.pending === "1"`, 10*time.Second)
	return e, a1, item
}

// offline blocks (or unblocks) every API request of the browser.
func (e *env) offline(on bool) { e.block("/api/*", on) }

// meStatus is the status GET /api/me answers the browser's cookie (0:
// the request failed).
func (e *env) meStatus() int {
	return eval[int](e, `fetch("/api/me").then(r => r.status, () => 0)`)
}

// outboxLen is how many judgments the user's outbox holds in the browser.
func (e *env) outboxLen(userID int64) int {
	return eval[int](e, fmt.Sprintf(`JSON.parse(localStorage.getItem("boolpool.outbox.v2.%d") || "[]").length`, userID))
}

// Major 3: "Sign out anyway" while offline ends the server session as soon
// as the network is back, no page acts as the old user meanwhile, and the
// unsent judgment stays with its author.
func TestOfflineSignOutEndsTheSessionWhenBack(t *testing.T) {
	e, a1, item := judgeOneOffline(t)

	e.do("sign out anyway", chromedp.Click(chromedp.CSS(`#logout`)), chromedp.WaitVisible(chromedp.CSS(`#logout-confirm`)),
		chromedp.Click(chromedp.CSS(`#logout-confirm-yes`)))
	e.waitJS("login page", `location.pathname === "/login"`, 15*time.Second)
	// The sign-in page says the sign-out waits for the network.
	for deadline := time.Now().Add(5 * time.Second); !eval[bool](e, `!!document.querySelector("#signout-pending")`) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if !eval[bool](e, `!!document.querySelector("#signout-pending")`) {
		t.Errorf("the sign-in page does not say that the sign-out waits for the network")
	}
	e.shot("signout-offline-01-pending")

	// Still offline, a judging page of the old user leads to the sign-in
	// page, not to their items.
	e.do("open the judging page", chromedp.Navigate(e.url+"/judge/fixture"))
	for deadline := time.Now().Add(15 * time.Second); eval[string](e, `location.pathname`) != "/login" && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if p := eval[string](e, `location.pathname`); p != "/login" {
		t.Errorf("offline after signing out, /judge/fixture stays on %s, want the sign-in page", p)
	}
	if n := e.outboxLen(a1); n != 1 {
		t.Errorf("annotator1's outbox holds %d judgments after signing out, want 1", n)
	}

	// The network is back: the session ends without anyone doing anything.
	e.offline(false)
	deadline := time.Now().Add(20 * time.Second)
	status := e.meStatus()
	for status != 401 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		status = e.meStatus()
	}
	if status != 401 {
		t.Fatalf("GET /api/me answers %d after the network came back, want 401: the signed-out session is alive", status)
	}
	e.waitJS("notice gone", `!document.querySelector("#signout-pending")`, 10*time.Second)
	e.do("open the judging page again", chromedp.Navigate(e.url+"/judge/fixture"))
	e.waitJS("sign-in page", `location.pathname === "/login"`, 15*time.Second)
	if js := judgments(t, e.st, a1); len(js) != 0 {
		t.Fatalf("annotator1 has %d judgments before signing in again", len(js))
	}
	if n := e.outboxLen(a1); n != 1 {
		t.Errorf("annotator1's outbox holds %d judgments, want 1", n)
	}

	// Signing in again sends the kept judgment, as theirs.
	e.login("annotator1")
	deadline = time.Now().Add(15 * time.Second)
	for len(judgments(t, e.st, a1)) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	js := judgments(t, e.st, a1)
	if len(js) != 1 || strconv.FormatInt(js[0].ItemID, 10) != item {
		t.Fatalf("annotator1's judgments %+v, want the one of item %s", js, item)
	}
}

// Minor: an item judged offline came back as a new item after an offline
// reload. The lease answer that brings it back left the server before the
// judgment arrived there and reaches the page after the outbox sent it:
// the test holds the lease answers in the browser until then.
func TestItemJudgedOfflineIsNotLeasedAgainAfterReload(t *testing.T) {
	e, a1, item := judgeOneOffline(t)
	e.do("reload offline", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-pending="1"]`)))

	paused := make(chan fetch.RequestID, 64)
	lctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	if err := chromedp.Listen(lctx, func(ev any) {
		if p, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case paused <- p.RequestID:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	call := func(what string, f func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
		defer cancel()
		if err := f(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	call("hold lease answers", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/queue", RequestStage: fetch.RequestStageResponse}}})
		return err
	})
	// The network is back, but for the judgment: a lease is answered.
	e.blockJudgments(true)
	var held []fetch.RequestID
	select {
	case id := <-paused:
		held = append(held, id)
	case <-time.After(30 * time.Second):
		t.Fatal("no lease request after the network came back")
	}
	// Now the judgment goes out and is acknowledged.
	e.blockJudgments(false)
	deadline := time.Now().Add(45 * time.Second)
	for (len(judgments(t, e.st, a1)) == 0 || e.outboxLen(a1) != 0) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n, left := len(judgments(t, e.st, a1)), e.outboxLen(a1); n != 1 || left != 0 {
		t.Fatalf("after the network came back: %d judgments stored, %d in the outbox; want 1 and 0", n, left)
	}
	// The answers held (leased before the judgment was stored) arrive.
	for more := true; more; {
		select {
		case id := <-paused:
			held = append(held, id)
		default:
			more = false
		}
	}
	call("release lease answers", func(ctx context.Context) error {
		for _, id := range held {
			if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
				return err
			}
		}
		_, err := chromedp.Call(ctx, fetch.Disable, struct{}{})
		return err
	})
	e.judgeReady("judging page after the network came back")
	time.Sleep(1500 * time.Millisecond) // later lease answers too
	e.shot("offline-reload-01-next-item")
	if got := e.itemOnScreen("#judge"); got == item {
		t.Errorf("item %s, judged offline and saved since, is on screen again as a new item", item)
	}
}

// Minor: when an admin disables the account of an annotator at work, the
// judgments that can no longer be sent are named in a message, not left
// "Saving…" forever, and they stay in the browser.
func TestDisabledAccountSaysJudgmentsAreNotSaved(t *testing.T) {
	e := newEnv(t, 1)
	a1 := e.fx.Users["annotator1"].ID
	e.startJudging("annotator1")
	e.judgeByKeys("2", "p")
	e.waitSaved()

	yes := true
	if _, err := e.st.UpdateUser(context.Background(), store.UserUpdate{ID: a1, Disabled: &yes, By: e.fx.Users["admin"].ID}); err != nil {
		t.Fatal(err)
	}
	e.judgeByKeys("1", "p")
	// Past the first retries: the page still says why.
	time.Sleep(5 * time.Second)
	badge := eval[string](e, `document.querySelector("#sync-status").textContent`)
	if strings.Contains(badge, "Saving") {
		t.Errorf("5 s after the account was disabled the badge says %q", badge)
	}
	msg := eval[string](e, `(document.querySelector("#session-ended") || {textContent: ""}).textContent`)
	for _, want := range []string{"1 judgment", "not saved", "disabled", "contact the researcher"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if role := eval[string](e, `(document.querySelector("#session-ended") || {getAttribute: () => ""}).getAttribute("role")`); role != "alert" {
		t.Errorf("message role %q, want alert", role)
	}
	e.shot("disabled-account-01-message")
	if n := e.outboxLen(a1); n != 1 {
		t.Errorf("the outbox holds %d judgments, want the unsent 1", n)
	}
	if n := len(judgments(t, e.st, a1)); n != 1 {
		t.Errorf("%d judgments stored, want the one made before the account was disabled", n)
	}
}
