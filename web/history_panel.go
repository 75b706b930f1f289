package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
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
}

// NewHistoryPanel returns an empty panel.
func NewHistoryPanel() *HistoryPanel { return &HistoryPanel{} }

// Entries sets the history, most recent first.
func (h *HistoryPanel) Entries(v []HistoryEntry) *HistoryPanel { h.Ientries = v; return h }

// Revisiting sets the item brought back from the history (0 if none).
func (h *HistoryPanel) Revisiting(v int64) *HistoryPanel { h.Irevisiting = v; return h }

// Render draws the panel.
func (h *HistoryPanel) Render() app.UI {
	es := h.Ientries
	if len(es) > historyShown {
		es = es[:historyShown]
	}
	return app.Section().ID("history").Class("history").Aria("label", "Your recent items").Body(
		app.Div().Class("history-head").Body(
			app.H2().Text("Your recent items"),
			app.Button().Type("button").ID("history-back").Disabled(len(h.Ientries) == 0).
				Aria("keyshortcuts", "Backspace").Text("Back (Backspace)").
				OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionHistory, app.Tags{"op": "back"}) }),
		),
		app.If(len(es) == 0, func() app.UI {
			return app.P().Class("hint").Text("The items you judge are listed here, to go back and correct them.")
		}),
		app.Ol().Class("history-list").Body(
			app.Range(es).Slice(func(i int) app.UI {
				e := es[i]
				li := app.Li().DataSet("item", e.Req.ItemID)
				if e.Req.ItemID == h.Irevisiting {
					li = li.Class("revisiting").Aria("current", "true")
				}
				return li.Body(
					// The item is read at event time: go-app keeps a row's
					// first handler closure when the list changes.
					app.Button().Type("button").Class("link", "history-open").DataSet("item", e.Req.ItemID).
						Textf("Item %d", e.Req.ItemID).
						OnClick(func(ctx app.Context, ev app.Event) {
							ctx.NewAction(actionHistory, app.Tags{"op": "open", "item": eventData(ctx, "item")})
						}),
					app.Text(" "),
					app.Span().Class("history-label").Text(HistoryLabel(e.Req)),
					app.If(e.Item != "", func() app.UI {
						return app.Span().Class("history-what").Title(e.Item).Text(shorten(e.Item, 70))
					}),
				)
			}),
		),
		app.If(len(es) > 0, func() app.UI {
			return app.P().Class("hint").Textf("The %d most recent are listed. Going back opens an item as you judged it; submitting it again replaces your earlier judgment.", historyShown)
		}),
	)
}
