package web

import (
	"context"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// ReusabilityPanel is the dashboard's reusability test (issue 24): for a
// pool the researcher names, each contributing run (and each method
// family) is left out of the qrels in turn (Zobel 1998) and the panel
// shows its scores and rank with and without its unique documents and
// Kendall's τ / τ_AP of the whole ranking. It loads only when asked: the
// report re-scores every run once per left-out run.
type ReusabilityPanel struct {
	app.Compo
	Iproject string

	askedReport[api.Reusability]
	pool string
}

// NewReusabilityPanel returns the panel.
func NewReusabilityPanel() *ReusabilityPanel { return &ReusabilityPanel{} }

// Project sets the project shown.
func (r *ReusabilityPanel) Project(v string) *ReusabilityPanel { r.Iproject = v; return r }

func (r *ReusabilityPanel) load(ctx app.Context, e app.Event) {
	e.PreventDefault()
	pool := strings.TrimSpace(r.pool)
	if r.loading {
		return
	}
	if pool == "" {
		r.errMsg = "Name the pool to test."
		return
	}
	project := r.Iproject
	r.ask(ctx, "Reusability could not be computed: ", func(c context.Context) (api.Reusability, error) {
		return NewClient().Reusability(c, project, pool)
	})
}

// Render draws the panel.
func (r *ReusabilityPanel) Render() app.UI {
	return app.Section().ID("reusability").Aria("label", "Pool reusability").DataSet("loaded", r.rep != nil).Body(
		app.H2().Text("Reusability (leave one run out)"),
		app.P().Class("hint").Text("Would a run that did not help build the pool be judged fairly? Each run that contributed is left out in turn: "+
			"the documents only it contributed leave the qrels, and every run is scored again."),
		app.Form().Class("actions").OnSubmit(r.load).Body(
			app.Label().For("reusability-pool").Text("Pool"),
			app.Input().ID("reusability-pool").Type("text").Value(r.pool).Placeholder("e.g. depth-10").
				OnInput(func(ctx app.Context, e app.Event) { r.pool = ctx.JSSrc().Get("value").String() }),
			app.Button().Type("submit").ID("reusability-load").Disabled(r.loading).Text(loadLabel(r.loading, "Test reusability")),
		),
		app.If(r.errMsg != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(r.errMsg) }),
		app.If(r.rep != nil, func() app.UI { return r.renderReport(*r.rep) }),
	)
}

func (r *ReusabilityPanel) renderReport(rep api.Reusability) app.UI {
	var maxes []string
	for _, m := range rep.Measures {
		maxes = append(maxes, m+" "+strconv.FormatFloat(rep.MaxAbsChange[m], 'f', 3, 64))
	}
	return app.Div().ID("reusability-report").DataSet("pool", rep.Pool).Body(
		app.P().ID("reusability-summary").Role("status").Textf("Pool %s, %d queries with consensus labels, %d runs. Largest change of a left-out run: %s.",
			rep.Pool, rep.Queries, len(rep.Runs), strings.Join(maxes, ", ")),
		renderLeaveOuts("reusability-runs", "Left-out run", rep.Measures, rep.LeaveOneRun),
		renderLeaveOuts("reusability-families", "Left-out family", rep.Measures, rep.LeaveOneFamily),
	)
}

// renderLeaveOuts is one table: a row per (left-out, run, measure).
func renderLeaveOuts(id, what string, measures []string, los []api.LeaveOut) app.UI {
	type row struct {
		lo api.LeaveOut
		m  string
		rc api.RunChange
		lm api.LeaveOutMeasure
	}
	var rows []row
	for _, lo := range los {
		for _, m := range measures {
			lm := lo.Measures[m]
			for _, rc := range lm.Runs {
				rows = append(rows, row{lo, m, rc, lm})
			}
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	return app.Table().ID(id).Class("data").Body(
		app.Caption().Text(what+": the documents only it contributed removed (relevant among them); its Judged@10, score and rank with and without them; τ and τ_AP of the whole ranking"),
		app.THead().Body(app.Tr().Body(
			app.Th().Scope("col").Text(what), app.Th().Scope("col").Text("Run"), app.Th().Scope("col").Text("Removed"),
			app.Th().Scope("col").Text("Judged@10"), app.Th().Scope("col").Text("Measure"), app.Th().Scope("col").Text("With"),
			app.Th().Scope("col").Text("Without"), app.Th().Scope("col").Text("Change"), app.Th().Scope("col").Text("Rank"),
			app.Th().Scope("col").Text("τ"), app.Th().Scope("col").Text("τ_AP"),
		)),
		app.TBody().Body(app.Range(rows).Slice(func(i int) app.UI {
			x := rows[i]
			return app.Tr().DataSet("left-out", x.lo.LeftOut).DataSet("run", x.rc.Run).DataSet("measure", x.m).DataSet("change", x.rc.Change).Body(
				app.Th().Scope("row").Text(x.lo.LeftOut),
				app.Td().Text(x.rc.Run),
				app.Td().Class("num").Textf("%d (%d)", x.lo.Removed, x.lo.RemovedRelevant),
				app.Td().Class("num").Text(f(x.lo.JudgedAt10[x.rc.Run])),
				app.Td().Text(x.m),
				app.Td().Class("num").Text(f(x.rc.With)),
				app.Td().Class("num").Text(f(x.rc.Without)),
				app.Td().Class("num").Textf("%+.3f", x.rc.Change),
				app.Td().Class("num").Textf("%d → %d", x.rc.RankWith, x.rc.RankWithout),
				app.Td().Class("num").Text(coefText(x.lm.KendallTau)),
				app.Td().Class("num").Text(coefText(x.lm.TauAP)),
			)
		})),
	)
}

// loadLabel is a load button's text while idle or busy.
func loadLabel(busy bool, idle string) string {
	if busy {
		return "Computing…"
	}
	return idle
}
