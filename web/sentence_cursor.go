package web

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// sentenceCursor is the sentence of a judging page's document that j and k
// move over and space marks (rows #s-N with data-sentence N).
type sentenceCursor struct {
	cursor int
}

// moveCursor moves the cursor on j (next) and k (previous) among n
// sentences and scrolls it into view; it reports whether key was j or k.
func (c *sentenceCursor) moveCursor(ctx app.Context, key string, n int) bool {
	switch key {
	case "j":
		if c.cursor < n-1 {
			c.cursor++
		}
	case "k":
		if c.cursor > 0 {
			c.cursor--
		}
	default:
		return false
	}
	id := fmt.Sprintf("s-%d", c.cursor)
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "nearest"})
		}
	})
	return true
}

// cursorToClicked moves the cursor to the sentence of t's document that
// was clicked, reporting false for a click on none. The sentence is read at
// event time (data-sentence), not captured: go-app keeps a row position's
// first handler closure across re-renders, so a captured one would be an
// earlier task's.
func (c *sentenceCursor) cursorToClicked(ctx app.Context, t api.Task) bool {
	if t.Document == nil {
		return false
	}
	i, err := strconv.Atoi(eventData(ctx, "sentence"))
	if err != nil || i < 0 || i >= len(t.Document.Sentences) {
		return false
	}
	c.cursor = i
	return true
}

// sentenceCount is how many sentences t's document has (0 without one).
func sentenceCount(t api.Task) int {
	if t.Document == nil {
		return 0
	}
	return len(t.Document.Sentences)
}
