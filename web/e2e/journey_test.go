//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// judgments returns a user's judgments, oldest first.
func judgments(t testing.TB, st *store.Store, userID int64) []store.Judgment {
	t.Helper()
	ids := storetest.Column[int64](t, st, `SELECT id FROM judgments WHERE user_id = $1 ORDER BY id`, userID)
	var out []store.Judgment
	for _, id := range ids {
		var itemID int64
		if err := st.Pool().QueryRow(context.Background(), `SELECT item_id FROM judgments WHERE id = $1`, id).Scan(&itemID); err != nil {
			t.Fatal(err)
		}
		js, err := st.JudgmentsByItem(context.Background(), itemID)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			if j.ID == id {
				out = append(out, j)
			}
		}
	}
	return out
}

func TestAnnotatorJourney(t *testing.T) {
	// One rater per item, so the item leased to annotator2 here is theirs alone.
	e := newEnv(t, 1)
	a1 := e.fx.Users["annotator1"].ID
	other := e.leaseFor(t, "annotator2")

	// Sign in.
	e.do("open login", chromedp.Navigate(e.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`#login[data-wasm="1"]`)))
	e.shot("01-login")
	e.login("annotator1")
	e.do("judge page ready", chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	// The instructions open by themselves on the first visit; i closes them.
	e.do("instructions", chromedp.WaitVisible(chromedp.CSS(`#instructions .example`)))
	e.shot("04-instructions")
	e.key("i")
	e.waitJS("instructions closed", `!document.querySelector('#instructions[role="dialog"]')`, 5*time.Second)
	e.shot("02-judge")

	// The keymap and the instructions open by keyboard.
	e.key("?")
	e.do("keymap", chromedp.WaitVisible(chromedp.CSS(`#keymap[role="dialog"]`)))
	e.shot("03-keymap")
	e.key("?")
	e.key("i")
	e.do("instructions again", chromedp.WaitVisible(chromedp.CSS(`#instructions .example`)))
	e.key("i")

	// Three items entirely by keyboard. The fixture's first query is
	// "A but not B" (atom 1 negated): mark a supporting sentence for atom a
	// and a counter-evidence sentence for the negated atom s.
	type plan struct {
		keys      []string
		relevance int
		evidence  string
	}
	plans := []plan{
		// relevance 3, evidence complete, a: sentence 2 holds; s: sentence 3 holds (counter-evidence) → contradiction warning
		{[]string{"3", "e", "a", "j", " ", "y", "s", "j", " ", "y"}, 3, "complete"},
		// relevance 2, partial; a: sentence 2 holds, s: does not hold
		{[]string{"2", "p", "a", "j", " ", "y", "s", "x"}, 2, "partial"},
		// relevance 0, none; a: unsure; s: sentence 3 marked, holds
		{[]string{"0", "n", "a", "u", "s", "j", "j", " ", "y"}, 0, "none"},
	}
	var judged []string
	for i, p := range plans {
		item := e.itemOnScreen("#judge")
		if item == "" {
			t.Fatalf("item %d: nothing on screen", i+1)
		}
		for _, k := range p.keys {
			e.key(k)
		}
		if i == 0 {
			e.do("contradiction warning", chromedp.WaitVisible(chromedp.CSS(`#contradiction`)))
			e.shot("05-judge-filled-contradiction")
		}
		e.key("\r")
		e.waitJS("next item", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
		judged = append(judged, item)
	}
	e.waitJS("saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 20*time.Second)
	e.shot("06-judge-saved")

	js := judgments(t, e.st, a1)
	if len(js) != 3 {
		t.Fatalf("annotator1 has %d judgments, want 3", len(js))
	}
	for i, j := range js {
		if strconv.FormatInt(j.ItemID, 10) != judged[i] || j.Relevance == nil || int(*j.Relevance) != plans[i].relevance || *j.Evidence != plans[i].evidence {
			t.Errorf("judgment %d: item %d rel %v ev %v, want item %s rel %d ev %s", i, j.ItemID, j.Relevance, j.Evidence, judged[i], plans[i].relevance, plans[i].evidence)
		}
		if j.TimeSpentMs <= 0 {
			t.Errorf("judgment %d: time spent %d", i, j.TimeSpentMs)
		}
	}
	var attrs []api.Attribution
	if err := json.Unmarshal(js[0].Attributions, &attrs); err != nil {
		t.Fatal(err)
	}
	if len(attrs) != 2 || fmt.Sprint(attrs[0].Sentences) != "[1]" || attrs[0].Counter || fmt.Sprint(attrs[1].Sentences) != "[2]" || !attrs[1].Counter {
		t.Errorf("first judgment attributions %+v: want atom 0 sentence 1, negated atom 1 counter-evidence sentence 2", attrs)
	}
	if !js[0].Contradiction || js[1].Contradiction {
		t.Errorf("contradiction flags %v %v, want true false", js[0].Contradiction, js[1].Contradiction)
	}

	// Offline: block the API, judge one more, come back, saved exactly once.
	e.offline(true)
	offlineItem := e.itemOnScreen("#judge")
	for _, k := range []string{"1", "p", "a", "j", " ", "x", "\r"} {
		e.key(k)
	}
	e.waitJS("offline badge", `document.querySelector("#sync-status").dataset.state === "offline"`, 20*time.Second)
	if got := eval[string](e, `document.querySelector("#sync-status").dataset.pending`); got != "1" {
		t.Errorf("pending while offline: %s, want 1", got)
	}
	e.shot("07-offline-pending")
	if n := len(judgments(t, e.st, a1)); n != 3 {
		t.Errorf("while offline the server has %d judgments, want 3", n)
	}
	// The queue survives a reload while offline (it lives in localStorage).
	if got := eval[int](e, fmt.Sprintf(`JSON.parse(localStorage.getItem("boolpool.outbox.v2.%d") || "[]").length`, a1)); got != 1 {
		t.Errorf("outbox in localStorage holds %d, want 1", got)
	}
	// Reload while still offline: the page comes up from the server (only the
	// API is blocked) and the queued judgment is still there.
	e.do("reload offline", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-pending="1"]`)))
	e.shot("07b-offline-reloaded")
	e.offline(false)
	e.waitJS("saved after reconnect", `document.querySelector("#sync-status").dataset.state === "saved"`, 45*time.Second)
	e.do("page recovers", chromedp.WaitVisible(chromedp.CSS(`#judge[data-state="ready"]`)))
	e.shot("08-back-online-saved")
	js = judgments(t, e.st, a1)
	count := 0
	for _, j := range js {
		if strconv.FormatInt(j.ItemID, 10) == offlineItem {
			count++
		}
	}
	if len(js) != 4 || count != 1 {
		t.Errorf("after reconnect: %d judgments, %d for the offline item %s; want 4 and exactly 1", len(js), count, offlineItem)
	}

	// Another annotator's item cannot be opened, in the UI or the API.
	e.do("open another's item", chromedp.Navigate(fmt.Sprintf("%s/item/%d", e.url, other)),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="error"]`)))
	e.shot("09-forbidden-item")
	status := eval[int](e, fmt.Sprintf(`fetch("/api/items/%d").then(r => r.status)`, other))
	if status != 403 {
		t.Errorf("GET another's item: %d, want 403", status)
	}
	post := eval[int](e, fmt.Sprintf(`fetch("/api/me").then(r => r.json()).then(me => fetch("/api/judgments", {method: "POST",
		headers: {"Content-Type": "application/json", "X-CSRF-Token": me.csrf_token},
		body: JSON.stringify({client_id: "11111111-2222-4333-8444-555555555555", author_id: me.user_id, item_id: %d, kind: "relevance", relevance: 3, evidence: "none"})})).then(r => r.status)`, other))
	if post != 403 {
		t.Errorf("judging another's item: %d, want 403", post)
	}
	for _, path := range []string{"/api/projects/fixture/stats", "/api/admin/users"} {
		if st := eval[int](e, `fetch("`+path+`").then(r => r.status)`); st != 403 {
			t.Errorf("annotator GET %s: %d, want 403", path, st)
		}
	}

	// Stage 1: paraphrase (keyboard: type, Enter).
	e.do("paraphrase page", chromedp.Navigate(e.url+"/paraphrase/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#paraphrase[data-wasm="1"][data-state="ready"]`)))
	e.do("type paraphrase", chromedp.SendKeys(chromedp.CSS(`#paraphrase-text`), "Which birds live in the Venezuelan Andes but not in Colombia?"))
	e.shot("10-paraphrase")
	para := e.itemOnScreen("#paraphrase")
	e.key("\r")
	e.waitJS("next paraphrase", fmt.Sprintf(`document.querySelector("#paraphrase").dataset.item !== %q`, para), 10*time.Second)
	e.waitJS("paraphrase saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 20*time.Second)

	// Stage 2: another annotator validates it (keyboard: y s 1 Enter).
	e.logout()
	e.login("annotator2")
	e.do("validation page", chromedp.Navigate(e.url+"/validate/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#validation[data-wasm="1"][data-state="ready"]`)))
	e.do("paraphrase shown", chromedp.WaitVisible(chromedp.CSS(`#paraphrase-shown`)))
	// The first visit's instructions take the keys until closed (issue 25).
	e.closeFirstVisitInstructions()
	for _, k := range []string{"y", "s", "1"} {
		e.key(k)
	}
	e.do("choices shown", chromedp.WaitVisible(chromedp.CSS(`button[data-naturalness="1"][aria-checked="true"]`)))
	e.shot("11-validation")
	e.key("\r")
	e.waitJS("validation done", `document.querySelector("#validation").dataset.state === "empty"`, 10*time.Second)
	e.waitJS("validation saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 20*time.Second)
	e.shot("12-validation-empty")
	vs := judgments(t, e.st, e.fx.Users["annotator2"].ID)
	var v api.ValidationAnswer
	if len(vs) != 1 || vs[0].Kind != "validation" || json.Unmarshal(vs[0].Payload, &v) != nil || v != (api.ValidationAnswer{Fluent: "yes", Meaning: "same", Naturalness: "yes"}) {
		t.Errorf("validation judgments %+v", vs)
	}

	// Researcher and admin pages are reachable by role.
	e.logout()
	e.login("researcher")
	e.do("researcher page", chromedp.WaitVisible(chromedp.CSS(`#researcher[data-state="ready"] #project-stats`)))
	e.shot("13-researcher")
	e.logout()
	e.login("admin")
	e.do("admin page", chromedp.WaitVisible(chromedp.CSS(`#admin[data-state="ready"] #users`)))
	e.shot("14-admin")
	t.Logf("screenshots in %s", e.shots)
}

// leaseFor leases a relevance item to another user through the judging
// service and returns its id.
func (e *env) leaseFor(t *testing.T, user string) int64 {
	t.Helper()
	svc := e.judge
	q, err := svc.Queue(context.Background(), judging.Rater{ID: e.fx.Users[user].ID, Role: api.RoleAnnotator}, "fixture", judging.QueueRequest{Kind: "relevance", N: 1})
	if err != nil || len(q.Tasks) == 0 {
		t.Fatalf("lease for %s: %v %+v", user, err, q)
	}
	return q.Tasks[0].ItemID
}
