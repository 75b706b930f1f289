//go:build !js

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCrowdCompletion (issue 25, Major 5): the researcher sets a
// completion code, a completion URL and a quota of two items in the crowd
// panel and copies the link; a participant enters, judges two items by
// keyboard and is then shown the code (no third item), is sent back to the
// completion URL, and the researcher's payment table lists them as
// completed with a CSV download.
func TestCrowdCompletion(t *testing.T) {
	e := newEnv(t, 1)
	e.login("researcher")
	e.do("setup page", chromedp.Navigate(e.url+"/setup/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#crowd-toggle:not([disabled])`)))
	e.do("turn entry on", chromedp.Click(chromedp.CSS(`#crowd-toggle`)), chromedp.WaitVisible(chromedp.CSS(`#crowd[data-state="on"] #crowd-link`)))
	if msg := eval[string](e, `document.querySelector("#crowd-message").textContent`); !strings.Contains(msg, "link above") {
		t.Errorf("message after turning entry on: %q", msg)
	}
	e.do("copy the link", chromedp.Click(chromedp.CSS(`#crowd-copy`)))
	e.waitJS("link selected for copying", `(() => { const l = document.querySelector("#crowd-link");
		return l.selectionStart === 0 && l.selectionEnd === l.value.length && l.value.length > 0 })()`, 5*time.Second)
	e.waitJS("copy answered", `/copied|Ctrl\+C/.test(document.querySelector("#crowd-message").textContent)`, 5*time.Second)
	link := eval[string](e, `document.querySelector("#crowd-link").value`)
	back := e.url + "/healthz?cc=CRWD-77"
	e.setInput("#crowd-code", "CRWD-77")
	e.setInput("#crowd-url", back)
	e.setInput("#crowd-quota-items", "2")
	e.do("save completion", chromedp.Click(chromedp.CSS(`#crowd-completion-save`)))
	e.waitJS("completion saved", `document.querySelector("#crowd-message").textContent === "Completion settings saved."`, 10*time.Second)
	eval[bool](e, `(document.querySelector("#crowd-completion-form").scrollIntoView(), true)`)
	e.shot("18-crowd-completion-settings")

	link = strings.Replace(link, "{{%PROLIFIC_PID%}}", "pp1", 1)
	e.do("start page", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`#enter[data-state="ready"] #enter-signed-in`)))
	e.do("confirm and start", chromedp.Click(chromedp.CSS(`#enter-replace`)), chromedp.Click(chromedp.CSS(`#enter-start`)))
	e.judgeReady("first item")
	e.closeFirstVisitInstructions()
	first := e.judgeByKeys("3", "e")
	e.judgeReady("second item")
	second := e.judgeByKeys("0", "n")
	if first == second {
		t.Fatalf("the same item %s twice", first)
	}
	e.do("completion shown", chromedp.WaitVisible(chromedp.CSS(`#judge[data-state="completed"] #completion-code`)))
	if code := eval[string](e, `document.querySelector("#completion-code").textContent`); code != "CRWD-77" {
		t.Errorf("completion code %q", code)
	}
	if href := eval[string](e, `document.querySelector("#completion-return").href`); href != back {
		t.Errorf("Return to the study goes to %q, want %q", href, back)
	}
	e.shot("19-crowd-completed")
	// Two judgments stored, and no third item leased to the participant.
	var judged, held int
	if err := e.st.Pool().QueryRow(e.ctx, `SELECT
			(SELECT count(*) FROM judgments j JOIN users u ON u.id = j.user_id WHERE u.external_id = 'fixture/pp1'),
			(SELECT count(*) FROM assignments a JOIN users u ON u.id = a.user_id WHERE u.external_id = 'fixture/pp1' AND a.status = 'leased')`).
		Scan(&judged, &held); err != nil {
		t.Fatal(err)
	}
	if judged != 2 || held != 0 {
		t.Errorf("participant: %d judgments, %d leases held; want 2 and 0", judged, held)
	}
	// A reload still shows the code, not an item.
	e.do("reload", chromedp.Navigate(e.url+"/judge/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="completed"] #completion-code`)))
	// The page sends the participant back to the completion URL.
	e.waitJS("back to the study", `location.pathname === "/healthz" && location.search === "?cc=CRWD-77"`, 20*time.Second)

	e.login("researcher")
	e.do("setup page again", chromedp.Navigate(e.url+"/setup/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#crowd-participants tr[data-participant="pp1"]`)))
	row := eval[[]string](e, `[...document.querySelectorAll('#crowd-participants tr[data-participant="pp1"] td')].map(td => td.textContent)`)
	if len(row) < 5 || row[1] != "2" || row[4] != "yes" {
		t.Errorf("payment table row %q; want 2 items, completed yes", row)
	}
	eval[bool](e, `(document.querySelector("#crowd-completion-form").scrollIntoView(), true)`)
	e.shot("20-crowd-payment-table")
	csvText := eval[string](e, `fetch(document.querySelector("#crowd-participants-csv").getAttribute("href")).then(r => r.text())`)
	lines := strings.Split(strings.TrimSpace(csvText), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "participant,items_judged,") || !strings.HasPrefix(lines[1], "pp1,2,") || !strings.Contains(lines[1], ",yes,") {
		t.Errorf("payment CSV:\n%s", csvText)
	}
}
