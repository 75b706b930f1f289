package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

var validationKeys = []KeyHelp{
	{"y n", "fluent: yes / no"},
	{"s d a", "meaning: same / different / ambiguous"},
	{"1 2 3", "natural: yes / maybe / no"},
	{"Enter", "submit and go to the next paraphrase"},
	{"i", "show or hide the instructions"},
	{"?", "show or hide this list"},
}

var (
	fluentOptions      = []struct{ key, value, label string }{{"y", "yes", "Fluent"}, {"n", "no", "Not fluent"}}
	meaningOptions     = []struct{ key, value, label string }{{"s", "same", "Same meaning"}, {"d", "different", "Different meaning"}, {"a", "ambiguous", "Ambiguous"}}
	naturalnessOptions = []struct{ key, value, label string }{{"1", "yes", "Natural"}, {"2", "maybe", "Maybe natural"}, {"3", "no", "Not natural"}}
)

// ValidationPage is the stage-2 task (QUEST figure 5): judge a paraphrase
// for fluency, meaning and naturalness; three raters, majority vote.
type ValidationPage struct {
	app.Compo
	taskFeed

	helpDialogs

	answer    api.ValidationAnswer
	message   string
	shownItem int64
}

// NewValidationPage returns the page.
func NewValidationPage() *ValidationPage { return &ValidationPage{} }

// OnNav sets the page up from /validate/<project>.
func (p *ValidationPage) OnNav(ctx app.Context) {
	p.nav(ctx, api.KindValidation, "Validate", p.syncForm, p.dialog)
}

// OnMount starts the client side.
func (p *ValidationPage) OnMount(ctx app.Context) { p.mount(ctx, p.onKey) }

// OnDismount stops the client side.
func (p *ValidationPage) OnDismount() { p.dismount() }

func (p *ValidationPage) syncForm(ctx app.Context) {
	p.openHelpOnFirstVisit(ctx, p.firstVisit(), p.client, p.project, api.KindValidation)
	if t, ok := p.current(); ok && t.ItemID != p.shownItem {
		p.shownItem = t.ItemID
		p.answer, p.message = api.ValidationAnswer{}, ""
	}
}

func (p *ValidationPage) onKey(ctx app.Context, key string, ev app.Value) bool {
	for _, o := range fluentOptions {
		if o.key == key {
			p.answer.Fluent = o.value
			return true
		}
	}
	for _, o := range meaningOptions {
		if o.key == key {
			p.answer.Meaning = o.value
			return true
		}
	}
	for _, o := range naturalnessOptions {
		if o.key == key {
			p.answer.Naturalness = o.value
			return true
		}
	}
	if p.helpKey(ctx, key, p.client, p.project, api.KindValidation) {
		return true
	}
	switch key {
	case "Enter":
		p.submit(ctx)
	default:
		return false
	}
	return true
}

func (p *ValidationPage) submit(ctx app.Context) {
	t, ok := p.current()
	if !ok {
		return
	}
	if p.answer.Fluent == "" || p.answer.Meaning == "" || p.answer.Naturalness == "" {
		p.message = "Answer all three questions first (y/n, s/d/a, 1/2/3)."
		return
	}
	a := p.answer
	if err := p.taskFeed.submit(ctx, api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindValidation, Validation: &a}); err != nil {
		p.message = err.Error()
	}
}

// Render draws the page.
func (p *ValidationPage) Render() app.UI {
	group := func(name, legend string, opts []struct{ key, value, label string }, current string, set func(string)) app.UI {
		return app.FieldSet().Class(name).Body(
			app.Legend().Text(legend),
			app.Range(opts).Slice(func(i int) app.UI {
				o := opts[i]
				return choice(name, o.key, o.label, current == o.value, func(ctx app.Context, e app.Event) { set(o.value) })
			}),
		)
	}
	return p.root(app.Div().ID("validation").Class("page", "validation")).Body(
		p.header("Validate paraphrases"),
		app.Main().Body(p.body(func(t api.Task) app.UI {
			return app.Div().Class("task", "simple-task").Body(
				app.Section().Class("query-panel").Body(
					app.H2().Text("Original query"),
					app.P().ID("query").Class("query").Body(queryText(t.Query)...),
					app.H2().Text("Paraphrase"),
					app.Blockquote().ID("paraphrase-shown").Class("paraphrase-text").Text(t.Paraphrase),
				),
				app.Section().Class("labels-panel").Body(
					group("fluent", "Is the paraphrase fluent? (y / n)", fluentOptions, p.answer.Fluent, func(v string) { p.answer.Fluent = v }),
					group("meaning", "Does it mean the same as the query? (s / d / a)", meaningOptions, p.answer.Meaning, func(v string) { p.answer.Meaning = v }),
					group("naturalness", "Would a person naturally ask it? (1 / 2 / 3)", naturalnessOptions, p.answer.Naturalness, func(v string) { p.answer.Naturalness = v }),
					app.If(p.message != "", func() app.UI { return app.P().ID("form-message").Class("error").Role("alert").Text(p.message) }),
					app.Button().Type("button").ID("submit").Class("primary").Text("Submit and next (Enter)").
						OnClick(func(ctx app.Context, e app.Event) { p.submit(ctx) }),
				),
			)
		})),
		NewKeymapDialog().Open(p.showKeys).Keys(validationKeys),
		NewInstructionsPanel().Open(p.showHelp).Instructions(p.instructions),
	)
}
