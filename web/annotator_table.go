package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/web/api"
)

// AnnotatorTable lists each rater's items, agreement with the others and
// accuracy on gold items.
type AnnotatorTable struct {
	app.Compo
	Irows []api.AnnotatorView
}

// NewAnnotatorTable returns an empty table.
func NewAnnotatorTable() *AnnotatorTable { return &AnnotatorTable{} }

// Rows sets the annotators.
func (t *AnnotatorTable) Rows(v []api.AnnotatorView) *AnnotatorTable { t.Irows = v; return t }

// Render draws the table.
func (t *AnnotatorTable) Render() app.UI {
	pct := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", *v*100)
	}
	return app.Section().ID("annotators").Aria("label", "Annotators").Body(
		app.H2().Text("Annotators"),
		app.Table().Body(
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Annotator"), app.Th().Scope("col").Text("Items"),
				app.Th().Scope("col").Text("Mean Cohen's κ with others"), app.Th().Scope("col").Text("Exact agreement"),
				app.Th().Scope("col").Text("Gold items"), app.Th().Scope("col").Text("Gold exact"), app.Th().Scope("col").Text("Gold binary"),
			)),
			app.TBody().Body(app.Range(t.Irows).Slice(func(i int) app.UI {
				a := t.Irows[i]
				return app.Tr().DataSet("user", a.Username).Body(
					app.Th().Scope("row").Text(a.Username), app.Td().Text(a.Items),
					app.Td().Text(coefText(a.Kappa)), app.Td().Text(pct(a.Agree)),
					app.Td().Text(a.GoldItems), app.Td().Text(pct(a.GoldExact)), app.Td().Text(pct(a.GoldBinary)),
				)
			})),
		),
	)
}
