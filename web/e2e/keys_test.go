//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"boolpool/server/atompool"
)

// Issue 25, Major 2: Enter and Space on a focused control are the
// control's (a history "Item N" button, Sign out, a skip-reason chip), not
// the page's shortcuts, and no shortcut acts behind an open dialog (the
// instructions, the keymap).

// focus gives an element the keyboard focus (as Tab would).
func (e *env) focus(selector string) {
	e.t.Helper()
	if !eval[bool](e, `(() => { const el = document.querySelector(`+strconv.Quote(selector)+`); if (!el) return false; el.focus(); return document.activeElement === el; })()`) {
		e.t.Fatalf("cannot focus %s", selector)
	}
}

// press presses Enter ("\r") or Space (" ") as a keyboard does: one
// keyDown carrying the text, then keyUp, so a page that cancels the keydown
// also cancels the key's default action (a focused button's click), as in
// a real browser (chromedp's KeyEvent sends the character as an event of
// its own, which clicks the button whatever the page did).
func (e *env) press(key string) {
	e.t.Helper()
	names := map[string][3]string{"\r": {"Enter", "Enter", "13"}, " ": {" ", "Space", "32"}}
	n, ok := names[key]
	if !ok {
		e.t.Fatalf("press: %q is not Enter or Space", key)
	}
	vk, _ := strconv.ParseInt(n[2], 10, 64)
	e.keyDownUp("press "+n[1], input.DispatchKeyEventParams{Key: n[0], Code: n[1], Text: key, UnmodifiedText: key,
		WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk})
}

// keyDownUp sends down as a keyDown (carrying its text), then the keyUp
// that ends it, as a keyboard does.
func (e *env) keyDownUp(what string, down input.DispatchKeyEventParams) {
	e.t.Helper()
	down.Type = input.DispatchKeyEventTypeKeyDown
	e.do(what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := down
		up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	}))
}

// gradeChosen is the grade checked on the judging page (-1: none).
func (e *env) gradeChosen() int {
	return eval[int](e, `(() => { const b = document.querySelector('.relevance button[aria-checked="true"]'); return b ? +b.dataset.relevance : -1; })()`)
}

// markedSentences counts the sentences marked on a judging page.
func (e *env) markedSentences() int {
	return eval[int](e, `document.querySelectorAll("#sentences li.marked, #sentences li .dot").length`)
}

// judgeOne opens the judging page as annotator1 and judges one item.
func judgeOne(t *testing.T) (*env, string) {
	e := newEnv(t, 1)
	e.startJudging("annotator1")
	first := e.judgeByKeys("2", "p")
	e.waitSaved()
	return e, first
}

func TestEnterOnHistoryButtonOpensItsItem(t *testing.T) {
	e, first := judgeOne(t)
	a1 := e.fx.Users["annotator1"].ID

	// Enter on the history's "Item N" button opens that item; it does not
	// submit the item on screen (filled in, so a submit would go through).
	second := e.itemOnScreen("#judge")
	e.key("1")
	e.key("n")
	e.focus(fmt.Sprintf(`#history li[data-item="%s"] button.history-open`, first))
	e.press("\r")
	e.waitJS("the first item opened again", fmt.Sprintf(`document.querySelector("#judge").dataset.item === %q`, first), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	if n := len(judgments(t, e.st, a1)); n != 1 {
		e.shot("keys-history-enter-failure")
		t.Fatalf("Enter on the history button stored %d judgments, want still 1 (item %s was submitted)", n, second)
	}
	if eval[bool](e, `!!document.activeElement.closest("#history")`) {
		t.Errorf("the history button keeps the focus after opening its item")
	}
	// The keys are the page's again: correct the first item.
	e.key("3")
	e.key("e")
	e.press("\r")
	e.waitJS("next item after the correction", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, first), 10*time.Second)
	e.waitSaved()
	id, _ := strconv.ParseInt(first, 10, 64)
	if j := latestJudgment(t, e.st, id, a1); j.Relevance == nil || *j.Relevance != 3 {
		t.Errorf("the correction of item %s: relevance %v, want 3", first, j.Relevance)
	}
}

func TestSpaceOnSkipChipPicksTheReason(t *testing.T) {
	e, _ := judgeOne(t)
	// Space on a skip-reason chip picks the reason; no sentence behind
	// the dialog is marked.
	e.shiftS()
	e.do("skip dialog", chromedp.WaitVisible(chromedp.CSS(`#skip-dialog`)))
	e.focus(`#skip-dialog button.chip[data-reason="1"]`)
	e.press(" ")
	e.waitJS("the chip's reason chosen", `document.querySelector("#skip-reason").value === "I do not understand the query"`, 5*time.Second)
	if n := e.markedSentences(); n != 0 {
		e.shot("keys-skip-chip-failure")
		t.Fatalf("Space on the chip marked %d sentence(s) behind the dialog", n)
	}
	e.waitJS("the reason field has the focus again", `document.activeElement.id === "skip-reason"`, 5*time.Second)
	e.key("\x1b")
	e.waitJS("skip dialog closed", `!document.querySelector("#skip-dialog")`, 5*time.Second)
}

func TestShortcutsDoNotActBehindDialogs(t *testing.T) {
	e, _ := judgeOne(t)
	// Nothing acts behind the instructions or the keymap.
	e.key("1")
	e.do("grade 1", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="1"][aria-checked="true"]`)))
	grade, marked := e.gradeChosen(), e.markedSentences()
	e.key("i")
	e.do("instructions", chromedp.WaitVisible(chromedp.CSS(`#instructions[role="dialog"]`)))
	for _, k := range []string{"3", "e", "j", " "} {
		e.key(k)
	}
	time.Sleep(300 * time.Millisecond)
	if g, n := e.gradeChosen(), e.markedSentences(); g != grade || n != marked {
		e.shot("keys-behind-instructions-failure")
		t.Fatalf("keys behind the instructions: grade %d and %d sentence(s) marked, want %d and %d as before", g, n, grade, marked)
	}
	e.key("i")
	e.waitJS("instructions closed", `!document.querySelector('#instructions[role="dialog"]')`, 5*time.Second)
	e.key("?")
	e.do("keymap", chromedp.WaitVisible(chromedp.CSS(`#keymap[role="dialog"]`)))
	e.key("0")
	time.Sleep(300 * time.Millisecond)
	if g := e.gradeChosen(); g != grade {
		t.Fatalf("key 0 behind the keymap chose grade %d (was %d)", g, grade)
	}
	e.key("?")
	e.waitJS("keymap closed", `!document.querySelector('#keymap[role="dialog"]')`, 5*time.Second)
}

// A grade clicked with the mouse leaves the keys to the page: j and
// space mark a sentence, Enter submits; then Enter on Sign out signs out
// (no "choose a grade").
func TestKeysAfterAClickAndEnterOnSignOut(t *testing.T) {
	e, _ := judgeOne(t)
	item := e.itemOnScreen("#judge")
	e.do("click grade 2", chromedp.Click(chromedp.CSS(`.relevance button[data-relevance="2"]`)))
	e.do("grade 2 chosen", chromedp.WaitVisible(chromedp.CSS(`.relevance button[data-relevance="2"][aria-checked="true"]`)))
	e.key("j")
	e.press(" ")
	e.waitJS("sentence 2 marked after the click", `!!document.querySelector("#s-1.marked")`, 5*time.Second)
	e.key("p")
	e.press("\r")
	e.waitJS("submitted by Enter after the click", fmt.Sprintf(`document.querySelector("#judge").dataset.item !== %q`, item), 10*time.Second)
	e.waitSaved()

	e.focus(`#logout`)
	e.press("\r")
	e.waitJS("signed out to the login page", `location.pathname === "/login"`, 10*time.Second)
	if st := eval[int](e, `fetch("/api/me").then(r => r.status)`); st != 401 {
		t.Errorf("after Enter on Sign out /api/me answers %d, want 401", st)
	}
}

func TestConstraintKeysGoToTheFocusedControl(t *testing.T) {
	e := newEnv(t, 1)
	if _, err := atompool.Pool(context.Background(), e.st, e.fx.Project.ID, atompool.ConstraintPoolRequest{}); err != nil {
		t.Fatal(err)
	}
	a1 := e.fx.Users["annotator1"].ID
	e.login("annotator1")
	e.do("constraint page", chromedp.Navigate(e.url+"/constraint/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#constraint[data-wasm="1"][data-state="ready"] #constraint-text`)))
	e.do("instructions on the first visit", chromedp.WaitVisible(chromedp.CSS(`#instructions[role="dialog"]`)))
	item := e.itemOnScreen("#constraint")

	// Behind the instructions, space and y do nothing.
	e.press(" ")
	e.key("y")
	time.Sleep(500 * time.Millisecond)
	if got, n := e.itemOnScreen("#constraint"), len(judgments(t, e.st, a1)); got != item || n != 0 || e.markedSentences() != 0 {
		e.shot("keys-constraint-behind-instructions-failure")
		t.Fatalf("keys behind the instructions: item %s (was %s), %d judgment(s), %d marked", got, item, n, e.markedSentences())
	}
	e.key("i")
	e.waitJS("instructions closed", `!document.querySelector('#instructions[role="dialog"]')`, 5*time.Second)

	// Space on the focused "Keyboard shortcuts" button opens the list; no
	// sentence is marked.
	e.focus(`#show-keys`)
	e.press(" ")
	e.do("keymap by Space on its button", chromedp.WaitVisible(chromedp.CSS(`#keymap[role="dialog"]`)))
	if n := e.markedSentences(); n != 0 {
		t.Fatalf("Space on the button marked %d sentence(s)", n)
	}
	e.key("\x1b")
	e.waitJS("keymap closed", `!document.querySelector('#keymap[role="dialog"]')`, 5*time.Second)

	// With no dialog open the shortcuts work.
	e.press(" ")
	e.waitJS("sentence marked", `!!document.querySelector("#s-0.marked")`, 5*time.Second)
	e.key("y")
	e.waitJS("answered", fmt.Sprintf(`document.querySelector("#constraint").dataset.item !== %q`, item), 10*time.Second)
}

// pressLetter presses a letter as a keyboard does: one keyDown carrying
// the text (a page cancelling the keydown types nothing), then keyUp.
func (e *env) pressLetter(letter string) {
	e.t.Helper()
	e.keyDownUp("press "+letter, input.DispatchKeyEventParams{Key: letter, Code: "Key" + strings.ToUpper(letter), Text: letter, UnmodifiedText: letter})
}

// TestCommentKeyFocusesTheCommentBox: c focuses the comment box (29 Tabs
// away) without typing a c into it; Esc leaves it and the keys are the
// page's again.
func TestCommentKeyFocusesTheCommentBox(t *testing.T) {
	e, _ := judgeOne(t)
	e.pressLetter("c")
	e.waitJS("the comment box has the focus", `document.activeElement.id === "comment"`, 5*time.Second)
	e.key("odd page")
	if v := eval[string](e, `document.querySelector("#comment").value`); v != "odd page" {
		e.shot("keys-comment-failure")
		t.Fatalf("comment box holds %q, want %q (no c typed by the key that focused it)", v, "odd page")
	}
	e.key("\x1b")
	e.waitJS("Esc leaves the comment box", `document.activeElement.id !== "comment"`, 5*time.Second)
	e.key("2")
	e.waitJS("grade keys act again", `document.querySelector('.relevance button[aria-checked="true"]') && document.querySelector('.relevance button[aria-checked="true"]').dataset.relevance === "2"`, 5*time.Second)
}
