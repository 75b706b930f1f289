package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

var paraphraseKeys = []KeyHelp{
	{"Enter", "submit the paraphrase and go to the next query (Shift+Enter: new line)"},
	{"Esc", "leave the text field"},
	{"m", "mark the query nonsensical (outside the text field)"},
	{"i", "show or hide the instructions"},
	{"?", "show or hide this list"},
}

// nonsensicalKeyHint is how the page advertises m: the paraphrase field has
// the focus when an item opens (writing is the task), so m there is a
// letter; the key works once Esc has left the field.
const nonsensicalKeyHint = "Esc, then m"

// ParaphrasePage is the stage-1 task (QUEST figure 4): rewrite a templated
// query as a fluent one, or mark it nonsensical.
type ParaphrasePage struct {
	app.Compo
	taskFeed

	helpDialogs

	text        string
	nonsensical bool
	message     string
	shownItem   int64
}

// NewParaphrasePage returns the page.
func NewParaphrasePage() *ParaphrasePage { return &ParaphrasePage{} }

// OnNav sets the page up from /paraphrase/<project>.
func (p *ParaphrasePage) OnNav(ctx app.Context) {
	p.nav(ctx, api.KindParaphrase, "Paraphrase", p.syncForm, p.dialog)
}

// OnMount starts the client side.
func (p *ParaphrasePage) OnMount(ctx app.Context) {
	p.mount(ctx, p.onKey)
	p.listenEnter(ctx)
}

// OnDismount stops the client side.
func (p *ParaphrasePage) OnDismount() { p.dismount() }

// listenEnter submits on Enter inside the paraphrase field.
func (p *ParaphrasePage) listenEnter(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.listen("keydown", func(ev app.Value) {
		if ev.Get("key").String() != "Enter" || ev.Get("shiftKey").Bool() {
			return
		}
		if t := ev.Get("target"); t.Truthy() && t.Get("id").String() == "paraphrase-text" {
			ev.Call("preventDefault")
			v := t.Get("value").String()
			ctx.Dispatch(func(ctx app.Context) { p.text = v; p.submit(ctx) })
		}
	})
}

func (p *ParaphrasePage) syncForm(ctx app.Context) {
	p.openHelpOnFirstVisit(ctx, p.firstVisit(), p.client, p.project, api.KindParaphrase)
	if t, ok := p.current(); ok && t.ItemID != p.shownItem {
		p.shownItem = t.ItemID
		p.text, p.nonsensical, p.message = "", false, ""
		setFieldValue("paraphrase-text", "") // go-app cannot clear a textarea
	}
}

func (p *ParaphrasePage) onKey(ctx app.Context, key string, ev app.Value) bool {
	if key == "Escape" {
		blurTarget(ev)
	}
	if p.helpKey(ctx, key, p.client, p.project, api.KindParaphrase) {
		return true
	}
	switch key {
	case "m":
		p.nonsensical = !p.nonsensical
	case "Enter":
		p.submit(ctx)
	default:
		return false
	}
	return true
}

func (p *ParaphrasePage) submit(ctx app.Context) {
	t, ok := p.current()
	if !ok {
		return
	}
	text := strings.TrimSpace(p.text)
	if text == "" && !p.nonsensical {
		p.message = "Write a paraphrase, or mark the query nonsensical (" + nonsensicalKeyHint + ")."
		return
	}
	if len(text) > api.MaxParaphrase && !p.nonsensical {
		p.message = tooLong("paraphrase", len(text), api.MaxParaphrase)
		return
	}
	req := api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindParaphrase, Paraphrase: &api.ParaphraseAnswer{Text: text, Nonsensical: p.nonsensical}}
	if err := p.taskFeed.submit(ctx, req); err != nil {
		p.message = err.Error()
	}
}

// Render draws the page.
func (p *ParaphrasePage) Render() app.UI {
	return p.root(app.Div().ID("paraphrase").Class("page", "paraphrase")).Body(
		p.header("Paraphrase"),
		app.Main().Body(p.body(func(t api.Task) app.UI {
			return app.Div().Class("task", "simple-task").Body(
				app.Section().Class("query-panel").Body(
					app.H2().Text("Templated query"),
					app.P().ID("query").Class("query").Body(queryText(t.Query)...),
				),
				app.Section().Class("labels-panel").Body(
					app.Label().For("paraphrase-text").Text("Your fluent paraphrase (same meaning, same and / or / not)"),
					app.Textarea().ID("paraphrase-text").Rows(3).MaxLength(api.MaxParaphrase).AutoFocus(true).Disabled(p.nonsensical).Text(p.text).
						OnInput(func(ctx app.Context, e app.Event) { p.text = ctx.JSSrc().Get("value").String() }),
					app.Label().Class("check").Body(
						app.Input().Type("checkbox").ID("nonsensical").Checked(p.nonsensical).
							OnChange(func(ctx app.Context, e app.Event) { p.nonsensical = ctx.JSSrc().Get("checked").Bool() }),
						app.Text(" The query is nonsensical ("+nonsensicalKeyHint+")"),
					),
					app.If(p.message != "", func() app.UI { return app.P().ID("form-message").Class("error").Role("alert").Text(p.message) }),
					app.Div().Class("actions").Body(
						app.Button().Type("button").ID("submit").Class("primary").Text("Submit and next (Enter)").
							OnClick(func(ctx app.Context, e app.Event) { p.submit(ctx) }),
						app.Button().Type("button").Class("link").Text("Instructions (i)").OnClick(func(ctx app.Context, e app.Event) {
							p.toggleHelp(ctx, p.client, p.project, api.KindParaphrase)
						}),
					),
				),
			)
		})),
		NewKeymapDialog().Open(p.showKeys).Keys(paraphraseKeys),
		NewInstructionsPanel().Open(p.showHelp).Instructions(p.instructions),
	)
}
