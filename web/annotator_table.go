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
	Irows    []api.AnnotatorView
	Iquality api.QualitySettings
}

// NewAnnotatorTable returns an empty table.
func NewAnnotatorTable() *AnnotatorTable { return &AnnotatorTable{} }

// Rows sets the annotators.
func (t *AnnotatorTable) Rows(v []api.AnnotatorView) *AnnotatorTable { t.Irows = v; return t }

// Quality sets the gold check's settings (its minimum accuracy).
func (t *AnnotatorTable) Quality(v api.QualitySettings) *AnnotatorTable { t.Iquality = v; return t }

// Render draws the table.
func (t *AnnotatorTable) Render() app.UI {
	pct := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", *v*100)
	}
	// Dawid–Skene estimates mean nothing below two annotators (dsSummary).
	ds := pct
	if len(t.Irows) < 2 {
		ds = func(*float64) string { return "—" }
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
					app.Td().Class("gold-check").Text(goldCheckText(a, t.Iquality)),
					app.Td().Text(ds(a.DSAccuracy)), app.Td().Text(ds(a.DSSensitivity)), app.Td().Text(ds(a.DSSpecificity)),
				)
			})),
		),
	)
}

// goldOKAccuracy is the binarised gold accuracy the gold check column
// calls ok while the project's check is off (minimum accuracy 0); with the
// check on, its minimum decides (docs/pooling-and-judging.md).
const goldOKAccuracy = 0.7

// goldCheckText is an annotator's gold check cell: ok only at or above the
// threshold, else low (or the check's flag), with the accuracy.
func goldCheckText(a api.AnnotatorView, q api.QualitySettings) string {
	if a.GoldItems == 0 {
		return "—"
	}
	counts := fmt.Sprintf("%d/%d, %.0f%%", a.GoldCorrect, a.GoldItems, 100*float64(a.GoldCorrect)/float64(a.GoldItems))
	switch {
	case a.Paused:
		return "⚠ below threshold (" + counts + "): paused"
	case a.Flagged:
		return "⚠ below threshold (" + counts + ")"
	}
	min := q.GoldMinAccuracy
	if min <= 0 {
		min = goldOKAccuracy
	}
	if float64(a.GoldCorrect) < min*float64(a.GoldItems) {
		return fmt.Sprintf("low (%s; ok from %.0f%%)", counts, 100*min)
	}
	return "ok (" + counts + ")"
}
