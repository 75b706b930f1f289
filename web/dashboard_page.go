package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// DashboardPage is a project's live research dashboard (/dashboard/:project):
// agreement, confusion matrix, annotators, leaderboard, per-template
// breakdown, pool progress, contradictions and pool composition. It loads
// one snapshot, then re-renders on every snapshot the server pushes over
// server-sent events (one per applied judgment or adjudication).
type DashboardPage struct {
	app.Compo
	projectPage
	snap   api.LiveSnapshot
	loaded bool
	live   string
	feed   *liveFeed
	qform  qualityForm
	// allQueries is every incomplete query with its text once the
	// researcher asked for them all (the snapshot lists the first 200).
	allQueries []api.QueryProgress
	qrels      qrelsBoard // the leaderboard's qrels mode (dashboard_qrels.go)
}

// NewDashboardPage returns the page.
func NewDashboardPage() *DashboardPage {
	return &DashboardPage{projectPage: projectPage{state: stateLoading}, live: liveConnecting}
}

// OnNav reads the project from the path and titles the page.
func (p *DashboardPage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Dashboard")
}

// OnMount loads the user and the first snapshot, then subscribes.
func (p *DashboardPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	cl, project := p.mountProject(ctx)
	loadWithMe(ctx, cl, func(c context.Context) (api.LiveSnapshot, error) { return cl.Dashboard(c, project) },
		func(ctx app.Context, me api.Me, snap api.LiveSnapshot, err error) {
			p.me = me
			p.state, p.message = pageState(ctx, err, false)
			if err != nil {
				return
			}
			p.apply(snap)
			p.feed = openLiveFeed(ctx, project, func(ctx app.Context, s api.LiveSnapshot) { p.apply(s) },
				func(ctx app.Context, state string) { p.live = state })
		})
}

// OnDismount closes the event stream.
func (p *DashboardPage) OnDismount() {
	p.stopQrels()
	p.feed.close()
	p.feed = nil
}

// apply keeps the newest snapshot (events may overtake the first GET).
func (p *DashboardPage) apply(s api.LiveSnapshot) {
	if p.loaded && s.Version < p.snap.Version {
		return
	}
	p.snap, p.loaded = s, true
	p.state = stateReady
	if s.Consensus.Items == 0 {
		p.state = stateEmpty
	}
}

// Render draws the page.
func (p *DashboardPage) Render() app.UI {
	s := p.snap
	return NewPage("dashboard").State(p.state).Data("live", p.live).Data("version", p.snap.Version).ClientSide(p.mounted).
		Nav(p.me, "dashboard", p.project).
		Title("Dashboard · "+p.project,
			app.Span().ID("live-status").Class("chip").Role("status").Aria("live", "polite").Text(liveLabel(p.live)),
			app.A().Href("/adjudicate/"+p.project).Textf("Adjudication queue (%d)", s.Consensus.Queue),
		).Content(
		app.If(p.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(p.message) }),
		app.If(p.loaded, func() app.UI {
			return app.Div().Class("dashboard-body").Body(
				p.renderProgress(),
				NewCALPanel(p.project, p.snap.Version), // cal_panel.go
				app.If(s.Consensus.Items == 0, func() app.UI {
					return app.Div().Body(
						app.P().ID("no-judgments").Class("notice").Role("status").
							Text("No judgments yet: numbers appear here as soon as annotators judge."),
						NewDerivedPanel().Project(p.project),
						p.renderLeaderboard(),
					)
				}),
				app.If(s.Consensus.Items > 0, func() app.UI {
					return app.Div().Body(
						p.renderConsensus(),
						NewAgreementCards().Agreement(s.Agreement),
						app.Div().Class("columns").Body(
							NewConfusionTable().Matrix(s.Agreement.Confusion),
							NewAnnotatorTable().Rows(s.Annotators).Quality(s.Quality.Settings),
						),
						p.renderQuality(),
						NewDerivedPanel().Project(p.project),
						p.renderLeaderboard(),
						NewEstimatesPanel(p.project, p.snap.Version), // estimates_panel.go
						NewReusabilityPanel().Project(p.project),     // reusability_panel.go
						NewStabilityPanel().Project(p.project),       // stability_panel.go
						p.renderTemplates(),
						p.renderContradictions(),
						p.renderComposition(),
					)
				}),
			)
		}),
	)
}

func liveLabel(state string) string {
	switch state {
	case liveOpen:
		return "● live"
	case liveRetrying:
		return "○ reconnecting…"
	case liveClosed:
		return "○ disconnected: reload the page (or sign in again)"
	}
	return "○ connecting…"
}

func (p *DashboardPage) renderConsensus() app.UI {
	return app.P().ID("consensus-summary").Text(consensusText(p.snap.Consensus))
}

// consensusText is the consensus line. Its "with at least one judgment"
// differs from the progress bar's "fully judged" (all r ratings in), so
// both say which they count; items with a single rating are counted apart
// from unanimous ones (one rating agrees with nobody).
func consensusText(c api.ConsensusSummary) string {
	return fmt.Sprintf("%s with at least one judgment: %d unanimous, %d with a single rating so far, %d majority, %s, %d adjudicated; %d relevant; %d awaiting adjudication.",
		plural(c.Items, "item", "items"), c.Unanimous, c.Single, c.Majority, plural(c.Tie, "tie", "ties"), c.Adjudicated, c.Relevant, c.Queue)
}

// progressLabel is the pool progress bar's text: items fully judged (every
// rating the project asks for is in), and how many more are started.
func progressLabel(pr api.PoolProgress, withJudgments int) string {
	s := fmt.Sprintf("%d of %d items fully judged (all their ratings in), %d remaining", pr.Judged, pr.Items, pr.Remaining)
	if started := withJudgments - pr.Judged; started > 0 {
		s += fmt.Sprintf(" (%d of them started)", min(started, pr.Remaining))
	}
	return s + fmt.Sprintf("; %d of %d queries complete", pr.QueriesComplete, pr.QueriesTotal)
}

func (p *DashboardPage) renderProgress() app.UI {
	pr := p.snap.Progress
	pct := 0
	if pr.Items > 0 {
		pct = pr.Judged * 100 / pr.Items
	}
	label := progressLabel(pr, p.snap.Consensus.Items)
	return app.Section().ID("pool-progress").Aria("label", "Pool progress").Body(
		app.H2().Text("Pool progress"),
		app.Div().Class("progress").Body(
			app.Div().Class("progress-track").Role("progressbar").Aria("label", "Pool progress").
				Aria("valuemin", 0).Aria("valuemax", pr.Items).Aria("valuenow", pr.Judged).Aria("valuetext", label).
				Body(app.Div().Class("progress-fill").Style("width", fmt.Sprintf("%d%%", pct))),
			app.Span().Class("progress-label").Text(label),
		),
		app.If(len(pr.Runs) > 0, func() app.UI {
			return app.Table().ID("run-progress").Body(
				app.Caption().Text("Per run (the items each run contributed)"),
				app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Run"), app.Th().Scope("col").Text("Items"),
					app.Th().Scope("col").Text("Judged"), app.Th().Scope("col").Text("Remaining"))),
				app.TBody().Body(app.Range(pr.Runs).Slice(func(i int) app.UI {
					r := pr.Runs[i]
					return app.Tr().Body(app.Th().Scope("row").Text(r.Run), app.Td().Text(r.Items), app.Td().Text(r.Judged), app.Td().Text(r.Remaining))
				})),
			)
		}),
		app.If(len(pr.Queries) > 0, func() app.UI { return p.renderIncomplete(pr) }),
	)
}

// renderTemplates charts the first leaderboard measure per query template
// (and per operator), one bar per run.
func (p *DashboardPage) renderTemplates() app.UI {
	measure := ""
	if len(p.snap.Leaderboard) > 0 && len(p.snap.Leaderboard[0].Scores) > 0 {
		measure = p.snap.Leaderboard[0].Scores[0].Measure
	}
	series := map[string]int{}
	for i, r := range p.snap.Leaderboard {
		series[r.Run] = i
	}
	bars := func(groups []api.Breakdown) []chartBar {
		var out []chartBar
		for _, g := range groups {
			label := g.Label
			if label == "" {
				label = "(no template)"
			}
			for _, r := range g.Runs {
				out = append(out, chartBar{Label: fmt.Sprintf("%s · %s (%d)", label, r.Run, g.Queries), Value: r.Means[measure], Series: series[r.Run]})
			}
		}
		return out
	}
	tb, ob := bars(p.snap.Templates), bars(p.snap.Operators)
	return app.Section().ID("templates").Aria("label", "Per-template breakdown").Body(
		app.H2().Textf("Per-template breakdown (%s)", measure),
		app.If(measure == "" || len(tb)+len(ob) == 0, func() app.UI { return app.P().Class("notice").Text("No breakdown yet.") }),
		app.If(len(tb) > 0, func() app.UI { return svg(barChartSVG("template-chart", "Per-template "+measure, tb, 1)) }),
		app.If(len(ob) > 0, func() app.UI { return svg(barChartSVG("operator-chart", "Per-operator "+measure, ob, 1)) }),
	)
}

// renderIncomplete lists the incomplete queries, saying how many of them
// the snapshot holds and offering them all (with their texts).
func (p *DashboardPage) renderIncomplete(pr api.PoolProgress) app.UI {
	incomplete := pr.QueriesTotal - pr.QueriesComplete
	list := pr.Queries
	if p.allQueries != nil {
		list = p.allQueries
	}
	summary := fmt.Sprintf("%d incomplete queries", incomplete)
	if len(list) < incomplete {
		summary = fmt.Sprintf("%d incomplete queries (%d of %d listed)", incomplete, len(list), incomplete)
	}
	return app.Details().ID("incomplete-queries").DataSet("shown", len(list)).DataSet("total", incomplete).Body(
		app.Summary().Text(summary),
		app.If(len(list) < incomplete, func() app.UI {
			return app.Button().Type("button").ID("incomplete-all").Class("link").OnClick(p.showAllQueries).
				Textf("Show all %d", incomplete)
		}),
		app.Ul().Body(app.Range(list).Slice(func(i int) app.UI {
			q := list[i]
			if q.Text != "" {
				return app.Li().Title(q.ExtID).Textf("%s: %d of %d judged", q.Text, q.Judged, q.Items)
			}
			return app.Li().Textf("%s: %d of %d judged", q.ExtID, q.Judged, q.Items)
		})),
	)
}

// showAllQueries fetches every incomplete query.
func (p *DashboardPage) showAllQueries(ctx app.Context, e app.Event) {
	cl, project, page := p.client, p.project, p.page
	ctx.Async(func() {
		qs, err := cl.IncompleteQueries(context.Background(), project)
		page.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.message = "Could not list the incomplete queries: " + userMessage(err)
				return
			}
			p.allQueries = qs
		})
	})
}

func (p *DashboardPage) renderContradictions() app.UI {
	c := p.snap.Contradictions
	return app.Section().ID("contradictions").Aria("label", "Constraint contradictions").Body(
		app.H2().Textf("Constraint contradictions (%d)", c.Total),
		app.If(c.Total == 0, func() app.UI {
			return app.P().Class("notice").Text("No judgment contradicts its own constraint labels.")
		}),
		app.If(len(c.Items) < c.Total, func() app.UI {
			return app.P().ID("contradictions-count").Body(
				app.Textf("The %d most recent of %d are listed; ", len(c.Items), c.Total),
				app.A().Href("/adjudicate/"+p.project).Text("the adjudication queue has them all"), app.Text("."))
		}),
		app.Ul().Body(app.Range(c.Items).Slice(func(i int) app.UI {
			it := c.Items[i]
			return app.Li().DataSet("item", it.ItemID).Body(
				app.A().Href(fmt.Sprintf("/adjudicate/%s?item=%d", p.project, it.ItemID)).Textf("%s / %s", it.QueryExtID, it.DocExtID),
				app.Span().Textf(" — %s", strings.Join(it.Raters, ", ")),
			)
		})),
	)
}

func (p *DashboardPage) renderComposition() app.UI {
	comp := p.snap.Composition
	runs := make([]string, len(comp.Runs))
	var bars []chartBar
	for i, r := range comp.Runs {
		runs[i] = r.Run
		bars = append(bars, chartBar{Label: r.Run + " relevant", Value: float64(r.Relevant), Series: i},
			chartBar{Label: r.Run + " only", Value: float64(r.Unique), Series: i})
	}
	return app.Section().ID("composition").Aria("label", "Pool composition").Body(
		app.H2().Text("Pool composition"),
		app.If(len(comp.Runs) == 0, func() app.UI { return app.P().Class("notice").Text("No runs contributed to the pool.") }),
		app.If(len(comp.Runs) > 0, func() app.UI {
			return app.Div().Class("columns").Body(
				app.Div().Body(
					app.H3().Text("Relevant documents found (and found only by this run)"),
					svg(barChartSVG("found-chart", "Relevant documents found per run", bars, 0)),
				),
				app.Div().Body(
					app.H3().Text("Run overlap: relevant documents found by both"),
					svg(heatGridSVG("overlap-chart", "Overlap of relevant documents between runs", runs, comp.Overlap)),
				),
				app.If(len(comp.PoolOverlap) > 0, func() app.UI {
					return app.Div().Body(
						app.H3().Text("Pool overlap: items contributed by both"),
						svg(heatGridSVG("pool-overlap-chart", "Overlap of pooled items between runs", runs, comp.PoolOverlap)),
					)
				}),
			)
		}),
	)
}
