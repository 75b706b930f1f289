//go:build !js

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Issue 25, Minor: key 4 says the scale is 0–3, and the judging page
// counts in the singular ("1 supporting sentence") and names "no
// evidence" (not "none evidence") in the history.
func TestScaleHintAndPlurals(t *testing.T) {
	e := newEnv(t, 1)
	e.startJudging("annotator1")
	e.key("4")
	e.waitJS("the scale hint", `(document.querySelector("#form-message") || {textContent: ""}).textContent.includes("0–3")`, 5*time.Second)
	if g := e.gradeChosen(); g != -1 {
		t.Errorf("key 4 chose grade %d", g)
	}
	e.key("0")
	e.waitJS("the hint goes with a grade", `!document.querySelector("#form-message")`, 5*time.Second)
	e.key(" ")
	e.waitJS("one sentence marked", `document.querySelector('li.atom-row[data-atom="0"] .atom-count').textContent === "1 supporting sentence"`, 5*time.Second)
	e.key("s")
	e.key("j")
	e.key(" ")
	e.key("j")
	e.key(" ")
	e.waitJS("two sentences for the NOT constraint", `document.querySelector('li.atom-row[data-atom="1"] .atom-count').textContent === "2 sentences showing the excluded property"`, 5*time.Second)
	if got := eval[string](e, `document.querySelector('li.atom-row[data-atom="0"] .atom-count').textContent`); got != "1 supporting sentence" {
		t.Errorf("constraint 1's count reads %q", got)
	}
	item := e.judgeByKeys("n")
	e.waitJS("history lists the judgment", fmt.Sprintf(`!!document.querySelector('#history li[data-item="%s"]')`, item), 5*time.Second)
	if txt := eval[string](e, fmt.Sprintf(`document.querySelector('#history li[data-item="%s"]').textContent`, item)); !strings.Contains(txt, "0 definitely not relevant · no evidence") {
		t.Errorf("history row reads %q, want … · no evidence", txt)
	}
}
