package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// The dashboard's leaderboard over direct, derived or both qrels (issue
// 13). Direct is the live snapshot's own leaderboard, pushed over
// server-sent events; derived and both are loaded from
// /api/projects/:project/leaderboard?qrels=… every derivedRefresh while
// selected, so they follow constraint judgments as they arrive.

// qrelsBoard holds the selected mode and the loaded leaderboard.
type qrelsBoard struct {
	mode   string // "" = direct
	data   api.QrelsLeaderboard
	loaded bool
	errMsg string
	stop   chan struct{}
}

// setQrels switches the leaderboard's qrels mode (the selector's change).
func (p *DashboardPage) setQrels(ctx app.Context, e app.Event) {
	mode := ctx.JSSrc().Get("value").String()
	if mode == api.QrelsDirect {
		mode = ""
	}
	if mode == p.qrels.mode {
		return
	}
	p.stopQrels()
	p.qrels.mode, p.qrels.loaded, p.qrels.errMsg = mode, false, ""
	if mode == "" || !app.IsClient {
		return
	}
	stop := make(chan struct{})
	p.qrels.stop = stop
	cl, project := NewClient(), p.project
	reloadEvery(ctx, stop, func(c context.Context) (api.QrelsLeaderboard, error) { return cl.Leaderboard(c, project, mode) },
		func(lb api.QrelsLeaderboard, err error) {
			if p.qrels.stop != stop {
				return // switched meanwhile
			}
			if err != nil {
				p.qrels.errMsg = "The leaderboard could not be loaded: " + err.Error()
				return
			}
			p.qrels.data, p.qrels.loaded, p.qrels.errMsg = lb, true, ""
		})
}

// stopQrels ends the reloads of a derived or both leaderboard.
func (p *DashboardPage) stopQrels() {
	if p.qrels.stop != nil {
		close(p.qrels.stop)
		p.qrels.stop = nil
	}
}

// renderLeaderboard draws the qrels selector and the leaderboard over the
// selected qrels; direct shows the snapshot's (only once items are judged).
func (p *DashboardPage) renderLeaderboard() app.UI {
	q := p.qrels
	mode := q.mode
	if mode == "" {
		mode = api.QrelsDirect
	}
	return app.Div().ID("leaderboard-view").DataSet("qrels", mode).DataSet("loaded", q.loaded).Body(
		app.Div().Class("field").Body(
			app.Label().For("leaderboard-qrels").Text("Leaderboard over "),
			app.Select().ID("leaderboard-qrels").OnChange(p.setQrels).Body(
				app.Option().Value(api.QrelsDirect).Selected(q.mode == "").Text("direct qrels (relevance judgments)"),
				app.Option().Value(api.QrelsDerived).Selected(q.mode == api.QrelsDerived).Text("derived qrels (constraint judgments)"),
				app.Option().Value(api.QrelsBoth).Selected(q.mode == api.QrelsBoth).Text("both: direct, else derived"),
			),
		),
		app.If(q.mode == "" && p.snap.Consensus.Items > 0, func() app.UI {
			return NewLeaderboard().Runs(p.snap.Leaderboard).Bootstrap(p.snap.Bootstrap)
		}),
		app.If(q.mode != "" && q.errMsg != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(q.errMsg) }),
		app.If(q.mode != "" && !q.loaded && q.errMsg == "", func() app.UI { return app.P().Class("hint").Text("Loading…") }),
		app.If(q.mode != "" && q.loaded, func() app.UI {
			return app.Div().Body(
				app.P().ID("leaderboard-qrels-summary").Role("status").DataSet("labels", q.data.Labels).DataSet("relevant", q.data.Relevant).
					Textf("Scored over %d %s labels (%d relevant); reloaded every %s.", q.data.Labels, q.data.Qrels, q.data.Relevant, derivedRefresh),
				NewLeaderboard().Runs(q.data.Leaderboard).Bootstrap(q.data.Bootstrap),
			)
		}),
	)
}
