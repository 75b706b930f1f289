package web

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// RefusedList names every judgment that was not sent: the ones the server
// refused (with the item and the server's reason, each to correct, send
// again or discard) and the ones kept aside because this browser does not
// know who made them (from before outboxes were per account; never sent,
// downloadable). Its buttons raise actionRefused for the judging page.
type RefusedList struct {
	app.Compo
	Ientries      []OutboxEntry
	Iunattributed []OutboxEntry
}

// NewRefusedList returns an empty list.
func NewRefusedList() *RefusedList { return &RefusedList{} }

// Entries sets the refused judgments.
func (l *RefusedList) Entries(v []OutboxEntry) *RefusedList { l.Ientries = v; return l }

// Unattributed sets the judgments kept aside without an author.
func (l *RefusedList) Unattributed(v []OutboxEntry) *RefusedList { l.Iunattributed = v; return l }

// Render draws the list as an alert region.
func (l *RefusedList) Render() app.UI {
	return app.Section().ID("refused").Class("notice", "error", "refused").Role("alert").Body(
		app.If(len(l.Ientries) > 0, func() app.UI {
			return app.Div().Body(
				app.H2().Textf("Not saved: %d judgment(s) refused by the server", len(l.Ientries)),
				app.Ul().Body(app.Range(l.Ientries).Slice(func(i int) app.UI { return l.renderEntry(l.Ientries[i]) })),
			)
		}),
		app.If(len(l.Iunattributed) > 0, func() app.UI {
			data, _ := json.MarshalIndent(l.Iunattributed, "", "  ")
			return app.P().ID("unattributed").Body(
				app.Textf("%d judgment(s) made in this browser before it recorded who made them are kept here and not sent: "+
					"they may be another user's, so they are never sent with your sign-in. ", len(l.Iunattributed)),
				app.A().ID("unattributed-download").Href("data:application/json;charset=utf-8,"+url.PathEscape(string(data))).
					Attr("download", "boolpool-unsent-judgments.json").Text("Download them"),
				app.Text(" (for your researcher) or "),
				app.Button().Type("button").Class("link").ID("unattributed-discard").Text("discard them").
					OnClick(func(ctx app.Context, e app.Event) {
						ctx.NewAction(actionRefused, app.Tags{"op": "discard-unattributed"})
					}),
				app.Text("."),
			)
		}),
	)
}

func (l *RefusedList) renderEntry(e OutboxEntry) app.UI {
	what := e.Item
	if what == "" {
		what = "item " + strconv.FormatInt(e.Req.ItemID, 10)
	}
	typed := e.Req.Comment
	if e.Req.SkipReason != "" {
		typed = e.Req.SkipReason
	}
	if e.Req.Paraphrase != nil {
		typed = e.Req.Paraphrase.Text
	}
	id := e.Req.ClientID
	return app.Li().Class("refused-item").DataSet("item", e.Req.ItemID).DataSet("client", id).Body(
		app.Strong().Class("refused-what").Textf("Item %d (%s): %s", e.Req.ItemID, e.Req.Kind, what),
		app.Br(),
		app.Span().Class("refused-reason").Text("Refused: "+e.LastError),
		app.If(typed != "", func() app.UI {
			return app.Details().Body(
				app.Summary().Textf("What you typed (%d bytes)", len(typed)),
				app.P().Class("refused-typed").Text(shorten(typed, 600)),
			)
		}),
		app.Div().Class("actions").Body(
			app.If(e.Req.Kind == api.KindRelevance, func() app.UI {
				return app.A().Class("button").Href("/item/" + strconv.FormatInt(e.Req.ItemID, 10)).Text("Open and correct")
			}),
			// The client id is read from the button at event time: go-app
			// keeps a row's first handler closure when the list changes.
			app.Button().Type("button").Class("refused-resend").DataSet("client", id).Text("Send again").OnClick(l.act("resend")),
			app.Button().Type("button").Class("refused-discard").DataSet("client", id).Text("Discard").OnClick(l.act("discard")),
		),
	)
}

func (l *RefusedList) act(op string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		ctx.NewAction(actionRefused, app.Tags{"op": op, "client_id": eventData(ctx, "client")})
	}
}

// shorten cuts s to at most n bytes (on a rune boundary) with an ellipsis.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
