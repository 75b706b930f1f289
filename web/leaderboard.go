package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Leaderboard is the table of runs with each measure's mean over the
// consensus qrels and its bootstrap interval.
type Leaderboard struct {
	app.Compo
	Iruns      []api.RunScores
	Ibootstrap api.BootstrapParameters
}

// NewLeaderboard returns an empty leaderboard.
func NewLeaderboard() *Leaderboard { return &Leaderboard{} }

// Runs sets the rows.
func (l *Leaderboard) Runs(v []api.RunScores) *Leaderboard { l.Iruns = v; return l }

// Bootstrap says how the intervals were computed.
func (l *Leaderboard) Bootstrap(v api.BootstrapParameters) *Leaderboard { l.Ibootstrap = v; return l }

// Render draws the table.
func (l *Leaderboard) Render() app.UI {
	var measures []string
	if len(l.Iruns) > 0 {
		for _, s := range l.Iruns[0].Scores {
			measures = append(measures, s.Measure)
		}
	}
	caption := "Means over the judged queries"
	if l.Ibootstrap.Resamples > 0 {
		caption = fmt.Sprintf("Means with %.0f%% %s intervals (%d resamples)", l.Ibootstrap.Level*100, l.Ibootstrap.Method, l.Ibootstrap.Resamples)
	}
	var intervals []chartInterval
	for i, r := range l.Iruns {
		if len(r.Scores) > 0 && r.Scores[0].Mean != nil {
			s := r.Scores[0]
			low, high := *s.Mean, *s.Mean
			if s.Low != nil && s.High != nil {
				low, high = *s.Low, *s.High
			}
			intervals = append(intervals, chartInterval{Label: r.Run, Mean: *s.Mean, Low: low, High: high, Series: i})
		}
	}
	return app.Section().ID("leaderboard").Aria("label", "Leaderboard").Body(
		app.H2().Text("Leaderboard"),
		app.If(len(l.Iruns) == 0, func() app.UI { return app.P().Class("notice").Text("No runs imported.") }),
		app.If(len(l.Iruns) > 0, func() app.UI {
			return app.Table().Body(
				app.Caption().Text(caption),
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Run"), app.Th().Scope("col").Text("Queries"),
					app.Range(measures).Slice(func(i int) app.UI {
						return app.Th().Scope("col").Title(measureDoc(measures[i])).Text(measures[i])
					}),
				)),
				app.TBody().Body(app.Range(l.Iruns).Slice(func(i int) app.UI {
					r := l.Iruns[i]
					return app.Tr().DataSet("run", r.Run).Body(
						app.Th().Scope("row").Text(r.Run), app.Td().Text(r.Queries),
						app.Range(r.Scores).Slice(func(j int) app.UI {
							s := r.Scores[j]
							if s.Mean == nil {
								return app.Td().DataSet("measure", s.Measure).DataSet("mean", "").Body(
									app.Span().Class("mean na").Title(notApplicable(s.Measure)).Text("n/a"),
								)
							}
							return app.Td().DataSet("measure", s.Measure).DataSet("mean", coefData(s.Mean)).Body(
								app.Span().Class("mean").Text(coefText(s.Mean)),
								app.If(s.Low != nil && s.High != nil, func() app.UI {
									return app.Span().Class("interval").Textf(" [%s, %s]", coefText(s.Low), coefText(s.High))
								}),
							)
						}),
					)
				})),
			)
		}),
		app.If(len(intervals) > 0, func() app.UI {
			return svg(intervalChartSVG("leaderboard-chart", measures[0]+" per run with its interval", intervals))
		}),
	)
}

// measureName is the name part of a measure ("f1@20" → "f1").
func measureName(m string) string {
	for i := 0; i < len(m); i++ {
		if m[i] == '@' {
			return m[:i]
		}
	}
	return m
}

// measureDoc explains a leaderboard column (its header's tooltip).
func measureDoc(m string) string {
	switch measureName(m) {
	case "ndcg":
		return "nDCG: graded gain of the consensus labels, trec_eval's ndcg_cut"
	case "mrr":
		return "Reciprocal rank of the first relevant document"
	case "p":
		return "Precision: relevant documents in the top k, divided by k"
	case "recall":
		return "Recall: share of the judged relevant documents in the top k"
	case "mrecall":
		return "MRecall: 1 when every relevant document is in the top k (Min et al. 2021, QUEST)"
	case "f1":
		return "Average set F1 (QUEST §4.2): the top k as the predicted set, F1 against the relevant set, averaged over queries"
	case "negrecall":
		return "NegRecall (BoolQuestions): share of the explicit negatives in the top k; lower is better"
	case "violation":
		return "Logical-consistency violation rate (LogiCoL): share of queries whose excluded documents rank above their relevant ones on average; lower is better"
	case "judged":
		return "Judged: share of the top k with a consensus label"
	case "nevir-accuracy":
		return "NevIR pairwise accuracy: share of negation pairs ranked the right way round for both queries"
	}
	return m
}

// notApplicable says why a measure has no value (the n/a tooltip).
func notApplicable(m string) string {
	switch measureName(m) {
	case "negrecall":
		return "n/a: no judged query has explicit negatives (import negative qrels or NevIR/BoolQuestions data)"
	case "violation":
		return "n/a: needs queries with both a relevant document and explicit negatives"
	case "nevir-accuracy":
		return "n/a: the project has no NevIR pairs (import them with the nevir format)"
	}
	return "n/a: no query of this run has a consensus label yet"
}
