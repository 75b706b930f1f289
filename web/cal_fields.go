package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// calChoice is the pool builder's choice for strategy cal: the first batch
// per query and the stopping rule (0 and "": the server's defaults).
type calChoice struct {
	batch int
	stop  string
}

func (c *calChoice) fill(s *api.PoolSpec) {
	s.CALBatch, s.CALStop = c.batch, c.stop
}

// render draws the cal fields; changed is called on every edit.
func (c *calChoice) render(changed func()) app.UI {
	return app.Div().ID("pool-cal").Body(
		app.Div().Class("field").Body(
			app.Label().For("pool-cal-batch").Text("First batch per query (then each batch grows by a tenth; empty: 5)"),
			app.Input().ID("pool-cal-batch").Type("number").Min(1).Max(1000).Value(map[bool]string{true: "", false: strconv.Itoa(c.batch)}[c.batch == 0]).
				OnInput(func(ctx app.Context, e app.Event) {
					c.batch, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
					changed()
				}),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-cal-stop").Text("Stopping rule"),
			app.Select().ID("pool-cal-stop").OnChange(func(ctx app.Context, e app.Event) {
				c.stop = ctx.JSSrc().Get("value").String()
				changed()
			}).Body(
				app.Option().Value("knee").Selected(c.stop == "" || c.stop == "knee").Text("knee — stop when relevant documents stop coming (slope ratio ≥ 6 after 100 judgments, or 20 judgments per relevant found + 50)"),
				app.Option().Value("paper-knee").Selected(c.stop == "paper-knee").Text("paper knee — Cormack & Grossman 2016 (at least 150 judgments)"),
				app.Option().Value("none").Selected(c.stop == "none").Text("none — until a researcher stops the query (or 1000 judgments)"),
			),
		),
	)
}

// calOrigins says where a cal pool's first batches come from.
func calOrigins(c api.PoolComposition) app.UI {
	return app.P().ID("pool-origins").Textf("First batches: %d items a chosen run has within the depth, %d found by active learning alone. "+
		"Each query's next batch is added when its current one is judged; follow them on the dashboard.", c.FromRuns, c.FromCAL)
}

// renderAtomsFields draws strategy atoms' batch size and candidates;
// changed is called on every edit.
func renderAtomsFields(batch *int, candidates *string, changed func()) app.UI {
	return app.Div().ID("pool-atoms").Body(
		app.Div().Class("field").Body(
			app.Label().For("pool-atoms-candidates").Text("Candidates"),
			app.Select().ID("pool-atoms-candidates").
				OnChange(func(ctx app.Context, e app.Event) {
					*candidates = ctx.JSSrc().Get("value").String()
					changed()
				}).Body(
				app.Option().Value("runs").Selected(*candidates != "corpus").Text("runs — the chosen runs' top documents"),
				app.Option().Value("corpus").Selected(*candidates == "corpus").Text("corpus — every document, ranked by an active learner per atom"),
			),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-atoms-batch").Text("Constraint items per batch (empty: 50)"),
			app.Input().ID("pool-atoms-batch").Type("number").Min(1).Max(10000).Value(map[bool]string{true: "", false: strconv.Itoa(*batch)}[*batch == 0]).
				OnInput(func(ctx app.Context, e app.Event) {
					*batch, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
					changed()
				}),
		),
	)
}

// atomsOrigins says what an atoms pool publishes; corpus: its candidates
// are every document, so the preview lists none.
func atomsOrigins(corpus bool) app.UI {
	what := "These are the candidates. "
	if corpus {
		what = "The candidates are every document of the corpus (no runs needed; chosen runs only get a Judged@k): an active learner per atom ranks them, batch by batch. "
	}
	return app.P().ID("pool-origins").DataSet("corpus", corpus).Text(what + "Publishing creates constraint items (atom, document) in batches: " +
		"for each query, the atom most likely to decide a candidate's label first, the next only if it leaves the label undecided, " +
		"each label shared by every query using the atom. The next batch is added when the current one is labelled; follow the derived qrels on the dashboard.")
}
