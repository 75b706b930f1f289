package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// InstructionsPanel shows a project's instructions for a task kind with
// good and bad examples (reopened at any time with i).
type InstructionsPanel struct {
	app.Compo
	Iopen         bool
	Ikind         string
	Iinstructions api.Instructions
}

// NewInstructionsPanel returns a closed panel.
func NewInstructionsPanel() *InstructionsPanel { return &InstructionsPanel{} }

// Open shows or hides the panel.
func (p *InstructionsPanel) Open(v bool) *InstructionsPanel { p.Iopen = v; return p }

// Kind sets the task kind the instructions are for.
func (p *InstructionsPanel) Kind(v string) *InstructionsPanel { p.Ikind = v; return p }

// Instructions sets the content.
func (p *InstructionsPanel) Instructions(v api.Instructions) *InstructionsPanel {
	p.Iinstructions = v
	return p
}

// Render draws the panel when open.
func (p *InstructionsPanel) Render() app.UI {
	if !p.Iopen {
		return app.Div().Hidden(true).ID("instructions")
	}
	in := p.Iinstructions
	return app.Section().ID("instructions").Class("dialog", "instructions").Role("dialog").Aria("labelledby", "instructions-title").Body(
		app.H2().ID("instructions-title").Text("Instructions"),
		app.If(in.Text == "", func() app.UI { return app.P().Text("Loading instructions…") }),
		app.P().Text(in.Text),
		app.If(p.Ikind == api.KindRelevance, func() app.UI {
			// Whatever a project's own text says, NOT constraints are
			// labelled this way (issue 17: "holds" was read both ways).
			return app.P().ID("not-explained").Class("not-explained").Body(
				app.Strong().Text("Constraints marked NOT "),
				app.Text("name a property relevant documents must not have (the excluded property). "+
					"Label the property itself: y = the excluded property is present in the document (so it fails the query), "+
					"x = the excluded property is absent, u = unsure. Mark the sentences that show the excluded property is present."),
			)
		}),
		app.Ul().Class("examples").Body(
			app.Range(in.Examples).Slice(func(i int) app.UI {
				ex := in.Examples[i]
				cls, tag := "bad", "Bad example"
				if ex.Good {
					cls, tag = "good", "Good example"
				}
				return app.Li().Class("example", cls).Body(
					app.Strong().Text(tag+": "),
					app.Span().Textf("query “%s”", ex.Query),
					app.If(ex.Document != "", func() app.UI { return app.Span().Textf(" · document “%s”", ex.Document) }),
					app.Span().Textf(" → %s. ", ex.Label),
					app.Em().Text(ex.Explanation),
				)
			}),
		),
		app.P().Class("hint").Text("These open by themselves on your first visit of each task type. Press i to open them again, i or Esc to close."),
	)
}
