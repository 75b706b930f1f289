package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// sampleSummary shows what a sampled pool draws: the judgments it asks
// for, the documents judged before, and each stratum's population and
// sample over the queries.
func sampleSummary(s api.SampleDrawn) app.UI {
	return app.Div().ID("pool-sample-drawn").Body(
		app.P().ID("pool-sample-totals").Textf("Sample: %d documents drawn — %d new judgments (%.1f expected by the design), %d judged before (probability 1, not published again); seed %d.",
			s.Units, s.New, s.Expected, s.JudgedBefore, s.Drawn.Seed),
		app.If(len(s.Drawn.Strata) > 0, func() app.UI {
			return app.P().ID("pool-sample-rates").Text("Rank strata drawn: " + api.FormatSampleStrata(s.Drawn.Strata))
		}),
		app.Table().ID("pool-sample-strata-table").Body(
			app.Caption().Text("Strata over all queries"),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Stratum"), app.Th().Scope("col").Text("Population"), app.Th().Scope("col").Text("Sampled"),
			)),
			app.TBody().Body(app.Range(s.Strata).Slice(func(i int) app.UI {
				st := s.Strata[i]
				return app.Tr().Body(
					app.Th().Scope("row").Text(st.Name),
					app.Td().Class("num").Text(st.Population),
					app.Td().Class("num").Text(st.Sampled),
				)
			})),
		),
	)
}
