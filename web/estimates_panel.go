package web

import (
	"context"
	"fmt"
	"sort"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// EstimatesPanel is the dashboard's "Estimated leaderboard" (issue 24):
// every run's measures estimated from the project's newest sampled pool,
// each with its 95 % interval from the sampling design, the estimated
// number of relevant documents (and so the recall of what is judged so
// far), and the pairs of runs that differ significantly after the Holm
// correction. The numbers are those `boolpool eval --estimate` prints. It
// reloads when the dashboard's snapshot version changes (a judgment was
// applied), one request at a time.
type EstimatesPanel struct {
	app.Compo
	Project string
	Version uint64

	panelLoader
	report  api.EstimateReport
	ok      bool
	message string
}

// NewEstimatesPanel returns the panel of a project.
func NewEstimatesPanel(project string, version uint64) *EstimatesPanel {
	return &EstimatesPanel{Project: project, Version: version}
}

// OnMount loads the estimates.
func (e *EstimatesPanel) OnMount(ctx app.Context) { e.mount(ctx, e.load) }

// OnUpdate reloads after a new snapshot.
func (e *EstimatesPanel) OnUpdate(ctx app.Context) {
	e.update(ctx, panelKey(e.Project, e.Version), e.load)
}

func (e *EstimatesPanel) load(ctx app.Context) {
	project := e.Project
	panelLoad(&e.panelLoader, panelKey(e.Project, e.Version), e.load,
		func(ctx context.Context, cl *Client) (api.EstimateReport, error) {
			return cl.Estimates(ctx, project, "")
		},
		func(ctx app.Context, r api.EstimateReport, err error) {
			if err != nil {
				e.ok, e.message = false, "Estimates unavailable: "+err.Error()
				return
			}
			e.report, e.ok, e.message = r, true, ""
		})
}

// Render draws the panel.
func (e *EstimatesPanel) Render() app.UI {
	r := e.report
	return app.Section().ID("estimates").Aria("label", "Estimated leaderboard").DataSet("loaded", e.ok).DataSet("estimated", r.Estimated).Body(
		app.H2().Text("Estimated leaderboard"),
		app.If(e.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(e.message) }),
		app.If(e.ok && r.Note != "", func() app.UI { return app.P().ID("estimates-note").Class("notice").Text(r.Note) }),
		app.If(e.ok && r.Estimated, func() app.UI {
			return app.P().ID("estimates-design").Textf("From the sampled pool %q: each value is an estimate with its 95 %% interval from the sampling design (unjudged documents are estimated, not counted as not relevant).", r.Pool)
		}),
		app.If(e.ok && len(r.Runs) > 0, func() app.UI { return e.table() }),
		app.If(e.ok, func() app.UI {
			t := r.RelevantTotal
			return app.P().ID("estimates-relevant").Textf("Relevant documents: %d judged relevant; estimated in all %.1f (95 %% interval %.1f–%.1f); estimated recall of the judged set %.3f (%.3f–%.3f).",
				r.JudgedRelevant, t.Est, t.Lo, t.Hi, r.JudgedRecall.Est, r.JudgedRecall.Lo, r.JudgedRecall.Hi)
		}),
		app.If(e.ok && len(r.Pairs) > 0, func() app.UI { return e.pairs() }),
	)
}

func (e *EstimatesPanel) table() app.UI {
	r := e.report
	runs := append([]api.RunEstimate(nil), r.Runs...)
	if len(r.Measures) > 0 {
		m := r.Measures[0]
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Means[m].Est > runs[j].Means[m].Est })
	}
	head := []app.UI{app.Th().Scope("col").Text("Run")}
	for _, m := range r.Measures {
		head = append(head, app.Th().Scope("col").Text(m))
	}
	return app.Table().ID("estimates-table").Class("leaderboard").Body(
		app.THead().Body(app.Tr().Body(head...)),
		app.TBody().Body(app.Range(runs).Slice(func(i int) app.UI {
			cells := []app.UI{app.Th().Scope("row").Text(runs[i].Run)}
			for _, m := range r.Measures {
				v := runs[i].Means[m]
				if r.Estimated {
					// The interval, not "± half-width": it is clipped to
					// [0, 1], so near 0 or 1 it is not symmetric.
					cells = append(cells, app.Td().DataSet("measure", m).Title(fmt.Sprintf("95%% interval %.4f–%.4f, SE %.4f", v.Lo, v.Hi, v.SE)).Body(
						app.Span().Class("mean").Textf("%.4f", v.Est),
						app.Span().Class("interval").Textf(" [%.4f, %.4f]", v.Lo, v.Hi),
					))
				} else {
					cells = append(cells, app.Td().DataSet("measure", m).Textf("%.4f", v.Est))
				}
			}
			return app.Tr().DataSet("run", runs[i].Run).Body(cells...)
		})),
	)
}

func (e *EstimatesPanel) pairs() app.UI {
	var sig []api.PairTest
	for _, p := range e.report.Pairs {
		if p.Significant {
			sig = append(sig, p)
		}
	}
	return app.Div().ID("estimates-pairs").Body(
		app.P().Textf("Pairs of runs that differ significantly (paired t-test over queries, Holm-corrected per measure, α 0.05): %d of %d.", len(sig), len(e.report.Pairs)),
		app.If(len(sig) > 0, func() app.UI {
			return app.Ul().Body(app.Range(sig).Slice(func(i int) app.UI {
				p := sig[i]
				return app.Li().Textf("%s: %s vs %s, difference %+.4f (adjusted p %.3g)", p.Measure, p.A, p.B, p.Diff, p.PHolm)
			}))
		}),
	)
}
