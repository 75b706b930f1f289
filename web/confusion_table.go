package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// ConfusionTable is the pooled 4×4 confusion matrix of relevance labels
// between pairs of raters, as a heat table (cell shade ∝ count).
type ConfusionTable struct {
	app.Compo
	Imatrix [][]int
}

// NewConfusionTable returns an empty table.
func NewConfusionTable() *ConfusionTable { return &ConfusionTable{} }

// Matrix sets the counts (rows and columns = labels 0–3).
func (t *ConfusionTable) Matrix(v [][]int) *ConfusionTable { t.Imatrix = v; return t }

// Render draws the table.
func (t *ConfusionTable) Render() app.UI {
	max := 0
	for _, row := range t.Imatrix {
		for _, v := range row {
			if v > max {
				max = v
			}
		}
	}
	short := []string{"0 not", "1 likely not", "2 likely", "3 definitely"}
	return app.Section().ID("confusion").Aria("label", "Confusion matrix").Body(
		app.H2().Text("Confusion matrix"),
		app.Table().Class("heat").Body(
			app.Caption().Text("Pairs of ratings of the same item: one rater's label (row) against another's (column)."),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text(""),
				app.Range(short).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(short[j]) }),
			)),
			app.TBody().Body(app.Range(t.Imatrix).Slice(func(i int) app.UI {
				row := t.Imatrix[i]
				label := fmt.Sprint(i)
				if i < len(short) {
					label = short[i]
				}
				return app.Tr().Body(
					app.Th().Scope("row").Text(label),
					app.Range(row).Slice(func(j int) app.UI {
						shade := 0.0
						if max > 0 {
							shade = float64(row[j]) / float64(max)
						}
						// Text colour by the cell's luminance: never dark on dark.
						bg := heatColor(shade)
						return app.Td().Style("background", bg.hex()).Style("color", bg.textColor()).Text(row[j])
					}),
				)
			})),
		),
	)
}
