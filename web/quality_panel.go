package web

import (
	"context"
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// The dashboard's quality panel: the gold check's settings (editable),
// how many annotators it flags, and the Dawid–Skene run behind the
// annotator table's DS columns.

// qualityForm is the panel's editable copy of the settings.
type qualityForm struct {
	edited  bool // the researcher changed a field: snapshots no longer overwrite the form
	q       api.QualitySettings
	saving  bool
	message string
}

func (p *DashboardPage) renderQuality() app.UI {
	v := p.snap.Quality
	if !p.qform.edited {
		p.qform.q = v.Settings
	}
	f := &p.qform
	num := func(id, label string, val string, step float64, minV, maxV any, set func(float64)) app.UI {
		return app.Div().Class("field").Body(
			app.Label().For(id).Text(label),
			app.Input().ID(id).Type("number").Step(step).Min(minV).Max(maxV).Value(val).
				OnInput(func(ctx app.Context, e app.Event) {
					if x, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64); err == nil {
						set(x)
						f.edited = true
					}
				}),
		)
	}
	ds := dsSummary(v, len(p.snap.Annotators))
	check := "Gold check off (minimum accuracy 0)."
	if v.Settings.GoldMinAccuracy > 0 {
		action := "flagged"
		if v.Settings.GoldPause {
			action = "flagged and paused (no new items)"
		}
		check = fmt.Sprintf("%d annotator(s) below %.0f%% binarised gold accuracy after %d gold items: %s.",
			v.Flagged, v.Settings.GoldMinAccuracy*100, v.Settings.GoldMinJudged, action)
	}
	return app.Section().ID("quality").Aria("label", "Quality control").Body(
		app.H2().Text("Quality control"),
		app.P().ID("quality-summary").DataSet("flagged", v.Flagged).Role("status").Text(check),
		app.P().ID("ds-summary").Text(ds),
		app.P().ID("consensus-current").DataSet("method", ConsensusMethodOrDefault(v.Settings.ConsensusMethod)).
			Text("Exports' consensus: "+ConsensusMethodName(v.Settings.ConsensusMethod)+"."),
		app.Form().ID("quality-form").OnSubmit(p.saveQuality).Body(
			num("gold-rate", "Gold share of each queue (0–1)", strconv.FormatFloat(f.q.GoldRate, 'f', -1, 64), 0.01, 0, 1,
				func(x float64) { f.q.GoldRate = x }),
			num("gold-min-accuracy", "Minimum gold accuracy (0–1; 0 = off)", strconv.FormatFloat(f.q.GoldMinAccuracy, 'f', -1, 64), 0.01, 0, 1,
				func(x float64) { f.q.GoldMinAccuracy = x }),
			num("gold-min-judged", "Gold items judged before the check applies", strconv.Itoa(f.q.GoldMinJudged), 1, 1, 1000,
				func(x float64) { f.q.GoldMinJudged = int(x) }),
			app.Div().Class("field").Body(
				app.Label().For("gold-pause").Body(
					app.Input().ID("gold-pause").Type("checkbox").Checked(f.q.GoldPause).
						OnChange(func(ctx app.Context, e app.Event) {
							f.q.GoldPause = ctx.JSSrc().Get("checked").Bool()
							f.edited = true
						}),
					app.Text(" Pause annotators below the minimum (they finish the items on screen, get no new ones)"),
				),
			),
			app.Div().Class("field").Body(
				app.Label().For("consensus-method").Text("Consensus of exports (when a download names none)"),
				app.Select().ID("consensus-method").DataSet("current", v.Settings.ConsensusMethod).
					OnChange(func(ctx app.Context, e app.Event) {
						f.q.ConsensusMethod = ctx.JSSrc().Get("value").String()
						f.edited = true
					}).Body(
					app.Range(consensusMethods).Slice(func(i int) app.UI {
						m := consensusMethods[i]
						return app.Option().Value(m.value).Selected(ConsensusMethodOrDefault(f.q.ConsensusMethod) == m.value).Text(m.label)
					}),
				),
			),
			app.Button().Type("submit").ID("quality-save").Class("primary").Disabled(f.saving).Text("Save quality settings"),
			app.If(f.message != "", func() app.UI { return app.P().ID("quality-message").Class("notice").Role("status").Text(f.message) }),
		),
	)
}

// consensusMethods are the project's consensus methods, as offered.
var consensusMethods = []struct{ value, label string }{
	{api.ConsensusMajority, "Majority vote (ties to adjudication)"},
	{api.ConsensusDawidSkene, "Dawid–Skene (annotators weighted by estimated reliability)"},
}

// ConsensusMethodOrDefault is a project's consensus method, the majority
// when unset (a server from before migration 0097 sends none).
func ConsensusMethodOrDefault(m string) string {
	if m == "" {
		return api.ConsensusMajority
	}
	return m
}

// ConsensusMethodName names a consensus method for the quality panel's
// summary line.
func ConsensusMethodName(m string) string {
	for _, c := range consensusMethods {
		if c.value == ConsensusMethodOrDefault(m) {
			return c.label
		}
	}
	return m
}

// dsSummary is the Dawid–Skene line. Below two annotators the model has
// nobody to weigh against anybody (it can only repeat the one annotator's
// labels), so the line says so instead of showing its estimates.
func dsSummary(v api.QualityView, annotators int) string {
	switch {
	case v.DSItems == 0 || v.DSPrior == nil:
		return "Dawid–Skene: no judgments yet."
	case annotators < 2:
		return "Dawid–Skene: needs two or more annotators (it weighs annotators against each other; with one it can only repeat their labels)."
	}
	conv := "converged"
	if !v.DSConverged {
		conv = "not converged"
	}
	return fmt.Sprintf("Dawid–Skene over %d judged items (%d iterations, %s): %.0f%% estimated relevant; its verdict differs from the majority on %d items.",
		v.DSItems, v.DSIterations, conv, *v.DSPrior*100, v.DSDisagree)
}

func (p *DashboardPage) saveQuality(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if p.qform.saving {
		return
	}
	p.qform.saving = true
	project, q := p.project, p.qform.q
	cl := p.client
	ctx.Async(func() {
		got, err := cl.SetQuality(context.Background(), project, q)
		ctx.Dispatch(func(ctx app.Context) {
			p.qform.saving = false
			if err != nil {
				p.qform.message = "Not saved: " + err.Error()
				return
			}
			p.qform.q, p.qform.edited = got, false
			p.snap.Quality.Settings = got
			p.qform.message = "Saved."
		})
	})
}
