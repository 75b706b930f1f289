package web

import (
	"sort"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// constraintKeys is the constraint judging page's keymap: three answer
// keys, each of which submits at once with the marked sentences.
var constraintKeys = []KeyHelp{
	{"y n u", "the document satisfies the constraint: yes / no / unsure (submits with the marked sentences and goes to the next item)"},
	{"j k", "next / previous sentence"},
	{"space", "mark or unmark the sentence as evidence (supporting for yes, counter-evidence for no); a click does the same"},
	{"i", "show or hide the instructions"},
	{"?", "show or hide this list"},
	{"Esc", "close dialogs"},
}

// constraintOptions are the three answers, in key order.
var constraintOptions = []struct{ key, value, label string }{
	{"y", api.SatisfiedYes, "Yes, it satisfies the constraint"},
	{"n", api.SatisfiedNo, "No, it does not"},
	{"u", api.SatisfiedUnsure, "Unsure: the text does not say"},
}

// ConstraintPage is the compact judging mode for constraint items
// (/constraint/<project>, issue 13): one constraint, the document, three
// keys. The answer is reused by every query that shares the constraint:
// the consensus of r raters becomes the (atom, document) label from which
// the queries' qrels are derived.
type ConstraintPage struct {
	app.Compo
	taskFeed
	helpDialogs
	sentenceCursor

	marked    map[int]bool // sentence ids marked as evidence
	message   string
	shownItem int64
}

// NewConstraintPage returns the page.
func NewConstraintPage() *ConstraintPage { return &ConstraintPage{marked: map[int]bool{}} }

// OnNav sets the page up from /constraint/<project>.
func (p *ConstraintPage) OnNav(ctx app.Context) {
	p.nav(ctx, api.KindConstraint, "Constraints", p.syncForm, p.dialog)
}

// OnMount starts the client side.
func (p *ConstraintPage) OnMount(ctx app.Context) { p.mount(ctx, p.onKey) }

// OnDismount stops the client side.
func (p *ConstraintPage) OnDismount() { p.dismount() }

func (p *ConstraintPage) syncForm(ctx app.Context) {
	p.openHelpOnFirstVisit(ctx, p.firstVisit(), p.client, p.project, api.KindConstraint)
	if t, ok := p.current(); ok && t.ItemID != p.shownItem {
		p.shownItem = t.ItemID
		p.marked, p.cursor, p.message = map[int]bool{}, 0, ""
	}
}

func (p *ConstraintPage) onKey(ctx app.Context, key string, ev app.Value) bool {
	if key == "Escape" {
		blurTarget(ev)
	}
	if p.helpKey(ctx, key, p.client, p.project, api.KindConstraint) {
		return true
	}
	t, ok := p.current()
	if !ok {
		return false
	}
	p.syncForm(ctx)
	if p.moveCursor(ctx, key, sentenceCount(t)) {
		return true
	}
	switch key {
	case "y", "n", "u":
		for _, o := range constraintOptions {
			if o.key == key {
				p.answer(ctx, t, o.value)
			}
		}
	case " ":
		if p.cursor < sentenceCount(t) {
			p.marked[p.cursor] = !p.marked[p.cursor]
		}
	default:
		return false
	}
	return true
}

// answer submits the judgment of t with the marked sentences and moves on.
func (p *ConstraintPage) answer(ctx app.Context, t api.Task, satisfied string) {
	sents := []int{}
	for s, on := range p.marked {
		if on {
			sents = append(sents, s)
		}
	}
	sort.Ints(sents)
	req := api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindConstraint,
		Constraint: &api.ConstraintAnswer{Satisfied: satisfied, Sentences: sents}}
	if err := p.taskFeed.submit(ctx, req); err != nil {
		p.message = "Could not keep the judgment in this browser: " + err.Error()
		return
	}
	p.syncForm(ctx)
}

// clickSentence marks or unmarks the clicked sentence.
func (p *ConstraintPage) clickSentence(ctx app.Context, e app.Event) {
	if t, ok := p.current(); ok && p.cursorToClicked(ctx, t) {
		p.marked[p.cursor] = !p.marked[p.cursor]
	}
}

// Render draws the page.
func (p *ConstraintPage) Render() app.UI {
	return p.root(app.Div().ID("constraint").Class("page", "judge", "constraint")).Body(
		p.header("Constraints"),
		app.Main().Body(p.body(p.renderTask)),
		NewKeymapDialog().Open(p.showKeys).Keys(constraintKeys),
		NewInstructionsPanel().Open(p.showHelp).Kind(api.KindConstraint).Instructions(p.instructions),
	)
}

func (p *ConstraintPage) renderTask(t api.Task) app.UI {
	text := ""
	if t.Constraint != nil {
		text = t.Constraint.Text
	}
	return app.Div().Class("task", "simple-task").Body(
		app.Section().Class("query-panel").Aria("label", "Constraint").Body(
			app.P().ID("item-id").Class("item-id").Textf("Item %d", t.ItemID),
			app.H2().Text("Does this document satisfy the constraint?"),
			app.P().ID("constraint-text").Class("query", "constraint-text").Body(app.Mark().Class("atom", "atom-0").Text(text)),
			app.P().Class("hint").Text("Your answer counts for every query with this constraint. Mark the sentences that show it (click, or j/k and space), then press y, n or u."),
		),
		documentPanel(t, "Sentences; j and k move, space marks as evidence", p.cursor,
			func(i int) bool { return p.marked[i] }, nil, p.clickSentence),
		app.Section().Class("labels-panel").Aria("label", "Your answer").Body(
			app.FieldSet().Class("constraint-answer").Body(
				app.Legend().Text("Answer (y / n / u)"),
				app.Range(constraintOptions).Slice(func(i int) app.UI {
					o := constraintOptions[i]
					return choice("answer", o.key, o.label, false, func(ctx app.Context, e app.Event) {
						// The task is read at click time (go-app keeps a
						// row's first closure).
						if cur, ok := p.current(); ok {
							p.answer(ctx, cur, o.value)
						}
					})
				}),
			),
			app.P().ID("evidence-count").Text(plural(p.markedCount(), "sentence", "sentences")+" marked as evidence"),
			app.If(p.message != "", func() app.UI { return app.P().ID("form-message").Class("error").Role("alert").Text(p.message) }),
			app.Button().Type("button").ID("show-keys").Class("link").Text("Keyboard shortcuts (?)").
				OnClick(func(ctx app.Context, e app.Event) { p.showKeys = !p.showKeys }),
		),
	)
}

func (p *ConstraintPage) markedCount() int {
	n := 0
	for _, on := range p.marked {
		if on {
			n++
		}
	}
	return n
}
