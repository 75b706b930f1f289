//go:build !js

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCrowdEntry follows a crowd-platform participant: the entry link signs
// them in without an account, they do the work (two paraphrase tasks marked
// nonsensical by keyboard), and the completion code appears at the end.
func TestCrowdEntry(t *testing.T) {
	e := newEnv(t, 1)
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE projects SET completion_code = 'BP-7Q2X' WHERE name = 'fixture'`); err != nil {
		t.Fatal(err)
	}
	e.do("enter", chromedp.Navigate(e.url+"/enter/fixture?PROLIFIC_PID=5f0c1a2b3c&STUDY_ID=x"),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.do("paraphrase page", chromedp.Navigate(e.url+"/paraphrase/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#paraphrase[data-wasm="1"][data-state="ready"]`)))
	for i := 0; i < 2; i++ {
		// The paraphrase field has the focus: Esc leaves it, m marks.
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
	e.shot("15-crowd-completion-code")
}
