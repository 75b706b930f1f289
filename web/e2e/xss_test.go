package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDocumentHTMLIsInert puts script and event-handler markup into the
// document an annotator judges: the page must show it as text and run
// none of it.
func TestDocumentHTMLIsInert(t *testing.T) {
	e := newEnv(t, 1)
	const body = `<script>window.__xss = 1</script> <img src="x" onerror="window.__xss = 2"> Plain words after the markup.`
	_, err := e.st.Pool().Exec(context.Background(), `UPDATE documents SET body = $1, sentence_starts = '{0}',
		title = '<b onmouseover="window.__xss = 3">bold?</b>'
		WHERE id = (SELECT document_id FROM items WHERE id = $2)`, body, e.fx.Relevance[0])
	if err != nil {
		t.Fatal(err)
	}
	e.login("annotator1")
	e.do("judge page ready", chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.closeFirstVisitInstructions()
	e.waitJS("the hostile document is on screen", `document.querySelector("#judge").innerText.includes("Plain words after the markup")`, 20*time.Second)
	e.shot("16-hostile-document-inert")
	if !eval[bool](e, `document.querySelector("#judge").innerText.includes('<script>window.__xss = 1</script>')`) {
		t.Fatal("the markup is not shown as text")
	}
	if n := eval[int](e, `document.querySelectorAll('#judge script, #judge img[src="x"], #judge b[onmouseover]').length`); n != 0 {
		t.Fatalf("%d elements from the document's markup were created", n)
	}
	if v := eval[string](e, `String(window.__xss)`); v != "undefined" {
		t.Fatalf("document markup ran: window.__xss = %s", v)
	}
}
