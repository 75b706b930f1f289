package web

import (
	"context"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// StabilityPanel is the dashboard's ranking-stability report (issue 24):
// Kendall's τ and τ_AP between the runs' rankings under the majority and
// the Dawid–Skene consensus, under each annotator's own labels and the
// consensus (Voorhees 2000), and over query bootstrap resamples. It loads
// only when asked.
type StabilityPanel struct {
	app.Compo
	Iproject string

	askedReport[api.Stability]
}

// NewStabilityPanel returns the panel.
func NewStabilityPanel() *StabilityPanel { return &StabilityPanel{} }

// Project sets the project shown.
func (s *StabilityPanel) Project(v string) *StabilityPanel { s.Iproject = v; return s }

func (s *StabilityPanel) load(ctx app.Context, e app.Event) {
	project := s.Iproject
	s.ask(ctx, "Stability could not be computed: ", func(c context.Context) (api.Stability, error) {
		return NewClient().Stability(c, project)
	})
}

// Render draws the panel.
func (s *StabilityPanel) Render() app.UI {
	return app.Section().ID("stability").Aria("label", "Ranking stability").DataSet("loaded", s.rep != nil).Body(
		app.H2().Text("Ranking stability"),
		app.P().Class("hint").Text("Does the ranking of the runs depend on the consensus rule, on who judged, or on which queries were chosen?"),
		app.Div().Class("actions").Body(
			app.Button().Type("button").ID("stability-load").Disabled(s.loading).Text(loadLabel(s.loading, "Compute ranking stability")).OnClick(s.load),
		),
		app.If(s.errMsg != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(s.errMsg) }),
		app.If(s.rep != nil, func() app.UI { return s.renderReport(*s.rep) }),
	)
}

func (s *StabilityPanel) renderReport(rep api.Stability) app.UI {
	type row struct {
		id, label, judgments, queries string
		corr                          map[string]api.RankCorr
	}
	c := rep.Consensus
	rows := []row{{"stability-consensus", "Majority vs Dawid–Skene (" + strconv.Itoa(c.Differ) + " of " + strconv.Itoa(c.Items) + " items differ)", "–", strconv.Itoa(rep.Queries), c.Measures}}
	for _, a := range rep.Annotators {
		rows = append(rows, row{"", "Annotator " + a.Annotator + " vs majority", strconv.Itoa(a.Judgments), strconv.Itoa(a.Queries), a.Measures})
	}
	head := []app.UI{app.Th().Scope("col").Text("Comparison"), app.Th().Scope("col").Text("Judgments"), app.Th().Scope("col").Text("Queries")}
	for _, m := range rep.Measures {
		head = append(head, app.Th().Scope("col").Text(m+" τ"), app.Th().Scope("col").Text(m+" τ_AP"))
	}
	return app.Div().ID("stability-report").Body(
		app.P().ID("stability-summary").Role("status").Textf("%d runs over %d queries with consensus labels.", len(rep.Runs), rep.Queries),
		app.Table().ID("stability-table").Class("data").Body(
			app.Caption().Text("Kendall's τ and τ_AP (Yilmaz, Aslam & Robertson 2008) between the two rankings of the runs; — where undefined"),
			app.THead().Body(app.Tr().Body(head...)),
			app.TBody().Body(app.Range(rows).Slice(func(i int) app.UI {
				x := rows[i]
				cells := []app.UI{app.Th().Scope("row").Text(x.label), app.Td().Class("num").Text(x.judgments), app.Td().Class("num").Text(x.queries)}
				for _, m := range rep.Measures {
					cells = append(cells, app.Td().Class("num").DataSet("measure", m).Text(coefText(x.corr[m].KendallTau)),
						app.Td().Class("num").Text(coefText(x.corr[m].TauAP)))
				}
				tr := app.Tr().Body(cells...)
				if x.id != "" {
					tr = tr.ID(x.id)
				}
				return tr
			})),
		),
		app.If(rep.Bootstrap.Resamples > 0, func() app.UI {
			return app.Table().ID("stability-bootstrap").Class("data").Body(
				app.Caption().Textf("Query bootstrap: %d resamples of the queries (seed %d), each ranking against the ranking over all queries", rep.Bootstrap.Resamples, rep.Bootstrap.Seed),
				app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Measure"), app.Th().Scope("col").Text("Mean τ"),
					app.Th().Scope("col").Text("5th percentile τ"), app.Th().Scope("col").Text("Mean τ_AP"))),
				app.TBody().Body(app.Range(rep.Measures).Slice(func(i int) app.UI {
					m := rep.Measures[i]
					b := rep.Bootstrap.Measures[m]
					return app.Tr().DataSet("measure", m).Body(app.Th().Scope("row").Text(m), app.Td().Class("num").Text(coefText(b.MeanTau)),
						app.Td().Class("num").Text(coefText(b.P5Tau)), app.Td().Class("num").Text(coefText(b.MeanTauAP)))
				})),
			)
		}),
	)
}
