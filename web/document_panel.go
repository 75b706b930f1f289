package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// documentPanel is a task's document section on the judging pages: the
// title and the sentences (label: the list's accessible name), with the
// cursor on sentence cursor and each sentence marked (marked(i)) as
// evidence; click handles a click on a sentence. marks, when given, is
// what stands before a sentence's text (the judge page's atom dots). A
// task without a document gets a notice instead.
func documentPanel(t api.Task, label string, cursor int, marked func(i int) bool, marks func(i int) []app.UI, click app.EventHandler) app.UI {
	d := t.Document
	if d == nil {
		return app.Section().Class("doc-panel").Aria("label", "Document").Body(
			app.P().Class("notice").Text("This item has no document."))
	}
	return app.Section().Class("doc-panel").Aria("label", "Document").Body(app.Div().Body(
		app.H2().ID("doc-title").Text(d.Title),
		app.Ol().ID("sentences").Class("sentences").Aria("label", label).Body(
			app.Range(d.Sentences).Slice(func(i int) app.UI {
				cls := []string{"sentence"}
				if i == cursor {
					cls = append(cls, "cursor")
				}
				if marked(i) {
					cls = append(cls, "marked")
				}
				li := app.Li().ID("s-%d", i).Class(cls...).DataSet("sentence", i).Aria("selected", marked(i)).OnClick(click)
				text := app.Span().Class("sentence-text").Text(d.Sentences[i])
				if marks == nil {
					return li.Body(text)
				}
				return li.Body(app.Span().Class("marks").Body(marks(i)...), text)
			}),
		),
	))
}
