//go:build !js

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCrowdEntry follows a study from both sides: the researcher turns
// crowd entry on in the setup page and copies the link; following it while
// still signed in shows a start page that asks before replacing the
// researcher's session; the participant starts (a POST), does the work
// (two paraphrase tasks marked nonsensical by keyboard) and sees the
// completion code. Replacing the key makes the old link a dead end.
func TestCrowdEntry(t *testing.T) {
	e := newEnv(t, 1)
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE projects SET completion_code = 'BP-7Q2X' WHERE name = 'fixture'`); err != nil {
		t.Fatal(err)
	}
	e.login("researcher")
	e.do("setup page", chromedp.Navigate(e.url+"/setup/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#crowd-toggle:not([disabled])`)))
	e.do("turn entry on", chromedp.Click(chromedp.CSS(`#crowd-toggle`)), chromedp.WaitVisible(chromedp.CSS(`#crowd[data-state="on"] #crowd-link`)))
	link := eval[string](e, `document.querySelector("#crowd-link").value`)
	if !strings.Contains(link, "/enter/fixture?key=") || !strings.HasSuffix(link, "&participant={{%PROLIFIC_PID%}}") {
		t.Fatalf("entry link %q", link)
	}
	e.shot("15-crowd-setup")
	link = strings.Replace(link, "{{%PROLIFIC_PID%}}", "5f0c1a2b3c", 1) + "&STUDY_ID=x"
	e.do("start page", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`#enter[data-state="ready"] #enter-signed-in`)))
	if who := eval[string](e, `document.querySelector("#enter-participant").textContent`); who != "5f0c1a2b3c" {
		t.Errorf("start page shows participant %q", who)
	}
	e.shot("16-crowd-start-page")
	// Start without confirming: the browser's form validation holds it.
	e.do("start unconfirmed", chromedp.Click(chromedp.CSS(`#enter-start`)))
	time.Sleep(300 * time.Millisecond)
	if me := eval[string](e, `fetch("/api/me").then(r => r.json()).then(m => m.username)`); me != "researcher" {
		t.Fatalf("the session changed to %q without confirmation", me)
	}
	e.do("confirm and start", chromedp.Click(chromedp.CSS(`#enter-replace`)), chromedp.Click(chromedp.CSS(`#enter-start`)),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.do("paraphrase page", chromedp.Navigate(e.url+"/paraphrase/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#paraphrase[data-wasm="1"][data-state="ready"]`)))
	// The paraphrase field takes the focus when the page is ready (a
	// moment after the state says so on a loaded machine).
	e.waitJS("field focused", `document.activeElement && document.activeElement.id === "paraphrase-text"`, 10*time.Second)
	for i := 0; i < 2; i++ {
		// Esc leaves the field (if it has the focus), m marks.
		e.do("leave the field", chromedp.KeyEvent("\x1b"))
		e.key("m")
		e.do("nonsensical checked", chromedp.WaitVisible(chromedp.CSS(`#nonsensical:checked`)))
		e.key("\r")
	}
	e.waitJS("all saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 20*time.Second)
	e.do("completion code", chromedp.Navigate(e.url+"/paraphrase/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#completion-code`)))
	if code := eval[string](e, `document.querySelector("#completion-code").textContent`); code != "BP-7Q2X" {
		t.Errorf("completion code %q", code)
	}
	e.shot("17-crowd-completion-code")
	// The participant comes back by the same link in the same browser.
	e.do("re-enter", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`#enter[data-state="ready"]`)))
	if n := eval[int](e, `document.querySelectorAll("#enter-signed-in").length`); n != 0 {
		t.Error("re-entry of the same participant asks to replace their own session")
	}
	e.do("start again", chromedp.Click(chromedp.CSS(`#enter-start`)),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"]`)))
	// The researcher replaces the key: the old link is a dead end.
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE projects SET crowd_key = 'replaced-key-0123456789' WHERE name = 'fixture'`); err != nil {
		t.Fatal(err)
	}
	e.do("old link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`#enter[data-state="error"] #enter-error`)))
}
