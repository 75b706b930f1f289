package web

import (
	"html"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// actionHistory carries the history panel's buttons to the judging page
// (tags op = back | open, item).
const actionHistory = "judge/history"

// historyShown is how many recent items the panel lists.
const historyShown = 10

// HistoryPanel lists the user's recent items with their labels and ids,
// each to open again and correct, and a Back button (Backspace).
type HistoryPanel struct {
	app.Compo
	Ientries    []HistoryEntry
	Irevisiting int64
	// Ifeedback is the newest review of the user's judgment of each item
	// (by item id), shown under the item with its note; Iproject and
	// IfeedbackTotal link to the feedback page.
	Ifeedback      map[int64]api.Review
	IfeedbackTotal int
	Iproject       string
	// Istandalone: shown without an item on screen (paused, nothing left),
	// as a card of its own rather than inside the query panel.
	Istandalone bool
}

// Standalone shows the panel as a card of its own (no item on screen).
func (h *HistoryPanel) Standalone(v bool) *HistoryPanel { h.Istandalone = v; return h }

// NewHistoryPanel returns an empty panel.
func NewHistoryPanel() *HistoryPanel { return &HistoryPanel{} }

// Entries sets the history, most recent first.
func (h *HistoryPanel) Entries(v []HistoryEntry) *HistoryPanel { h.Ientries = v; return h }

// Revisiting sets the item brought back from the history (0 if none).
func (h *HistoryPanel) Revisiting(v int64) *HistoryPanel { h.Irevisiting = v; return h }

// Feedback sets the reviews of the user's judgments (by item), how many
// they received in all and the project of the feedback page.
func (h *HistoryPanel) Feedback(byItem map[int64]api.Review, total int, project string) *HistoryPanel {
	h.Ifeedback, h.IfeedbackTotal, h.Iproject = byItem, total, project
	return h
}

// Render draws the panel. The list is one piece of HTML (historyListHTML),
// replaced whole when it changes: after a submit every row moves down one
// place, which as go-app elements took some 50 attribute and text writes
// from wasm (2–3 ms of the browser's only thread, in the update that shows
// the next item); replacing the list is a few calls. Its text is escaped,
// and its buttons are handled by one listener on the panel (onClick).
func (h *HistoryPanel) Render() app.UI {
	es := h.Ientries
	if len(es) > historyShown {
		es = es[:historyShown]
	}
	cls := []string{"history"}
	if h.Istandalone {
		cls = append(cls, "standalone")
	}
	return app.Section().ID("history").Class(cls...).Aria("label", "Your recent items").
		OnClick(h.onClick).Body(
		app.Div().Class("history-head").Body(
			app.H2().Text("Your recent items"),
			app.Button().Type("button").ID("history-back").Disabled(len(h.Ientries) == 0).
				Aria("keyshortcuts", "Backspace").Text("Back (Backspace)").
				OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionHistory, app.Tags{"op": "back"}) }),
		),
		app.If(h.Iproject != "" && h.IfeedbackTotal > 0, func() app.UI {
			return app.P().ID("feedback-received").Body(
				app.A().Href("/feedback/"+h.Iproject).Textf("Feedback received (%d)", h.IfeedbackTotal),
			)
		}),
		app.If(len(es) == 0, func() app.UI {
			return app.P().Class("hint").Text("The items you judge are listed here, to go back and correct them.")
		}),
		app.Raw(historyListHTML(es, h.Irevisiting, h.Ifeedback)),
		app.If(len(es) > 0, func() app.UI {
			return app.P().Class("hint").Textf("The %d most recent are listed. Going back opens an item as you judged it; submitting it again replaces your earlier judgment.", historyShown)
		}),
	)
}

// onClick opens the item of a history row's button.
func (h *HistoryPanel) onClick(ctx app.Context, e app.Event) {
	btn := e.Get("target").Call("closest", "button.history-open")
	if !btn.Truthy() {
		return
	}
	ctx.NewAction(actionHistory, app.Tags{"op": "open", "item": btn.Get("dataset").Get("item").String()})
}

// historyListHTML is the history list: for each entry its item id (a button
// to open it again), its label and what was judged, and a researcher's
// review of the judgment with its note, all text escaped.
func historyListHTML(es []HistoryEntry, revisiting int64, feedback map[int64]api.Review) string {
	var b strings.Builder
	b.WriteString(`<ol class="history-list">`)
	for _, e := range es {
		id := strconv.FormatInt(e.Req.ItemID, 10)
		b.WriteString(`<li data-item="` + id + `"`)
		if e.Req.ItemID == revisiting {
			b.WriteString(` class="revisiting" aria-current="true"`)
		}
		b.WriteString(`><button type="button" class="link history-open" data-item="` + id + `">Item ` + id + `</button> `)
		b.WriteString(`<span class="history-label">` + html.EscapeString(HistoryLabel(e.Req)) + `</span>`)
		if e.Item != "" {
			b.WriteString(`<span class="history-what" title="` + html.EscapeString(e.Item) + `">` + html.EscapeString(shorten(e.Item, 70)) + `</span>`)
		}
		if r, ok := feedback[e.Req.ItemID]; ok {
			b.WriteString(historyReviewHTML(r))
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ol>`)
	return b.String()
}

// historyReviewHTML is a review under a history entry: the verdict, who,
// and the note (escaped).
func historyReviewHTML(r api.Review) string {
	what := "Accepted"
	if r.Verdict == api.ReviewCorrect && r.Relevance != nil {
		what = "Corrected to " + relevanceName(*r.Relevance)
	}
	what += " by " + r.Reviewer
	if !r.Current {
		what += " (your earlier judgment)"
	}
	out := `<div class="history-review review-` + html.EscapeString(r.Verdict) + `" data-review="` + strconv.FormatInt(r.ID, 10) + `">` +
		`<strong>` + html.EscapeString(what) + `</strong>`
	if r.Note != "" {
		out += ` <q class="review-note">` + html.EscapeString(r.Note) + `</q>`
	}
	return out + `</div>`
}
