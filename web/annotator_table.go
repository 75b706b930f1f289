package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// AnnotatorTable lists each rater's items, agreement with the others,
// accuracy on gold items (with the gold check's flag) and the Dawid–Skene
// estimates of their reliability.
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
				app.Th().Scope("col").Text("Gold check"),
				app.Th().Scope("col").Text("DS accuracy"), app.Th().Scope("col").Text("DS sensitivity"), app.Th().Scope("col").Text("DS specificity"),
			)),
			app.TBody().Body(app.Range(t.Irows).Slice(func(i int) app.UI {
				a := t.Irows[i]
				row := app.Tr().DataSet("user", a.Username).DataSet("flagged", a.Flagged)
				if a.Flagged {
					row = row.Class("flagged")
				}
				return row.Body(
					app.Th().Scope("row").Text(a.Username), app.Td().Text(a.Items),
					app.Td().Text(coefText(a.Kappa)), app.Td().Text(pct(a.Agree)),
					app.Td().Text(a.GoldItems), app.Td().Text(pct(a.GoldExact)), app.Td().Text(pct(a.GoldBinary)),
					app.Td().Class("gold-check").Text(goldCheckText(a)),
					app.Td().Text(pct(a.DSAccuracy)), app.Td().Text(pct(a.DSSensitivity)), app.Td().Text(pct(a.DSSpecificity)),
				)
			})),
		),
	)
}

// goldCheckText is an annotator's gold check cell.
func goldCheckText(a api.AnnotatorView) string {
	switch {
	case a.Paused:
		return fmt.Sprintf("⚠ below threshold (%d/%d): paused", a.GoldCorrect, a.GoldItems)
	case a.Flagged:
		return fmt.Sprintf("⚠ below threshold (%d/%d)", a.GoldCorrect, a.GoldItems)
	case a.GoldItems > 0:
		return fmt.Sprintf("ok (%d/%d)", a.GoldCorrect, a.GoldItems)
	}
	return "—"
}
