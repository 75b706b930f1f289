package web

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// PoolBuilderPage builds a judging pool for a project (/pools/:project):
// the researcher chooses runs, depth, strategy, logic probes and raters
// per item, previews the composition (items per run, unique, overlap,
// Judged@k) and then publishes it as relevance items. Any change to the
// choices discards the preview, so what is published is what was seen.
// Publishing is a background job (kind pool): the page follows it, with
// its progress and a Cancel button as on the setup page, and shows the
// published pool when it is done.
type PoolBuilderPage struct {
	app.Compo
	projectPage
	runs      []api.RunSummary
	chosen    map[string]bool
	name      string
	depth     int
	strategy  string
	probes    bool
	raters    int          // 0 = keep the project's
	cal       calChoice    // strategy cal (cal_fields.go)
	sample    sampleChoice // strategy sample (sample_fields.go)
	preview   *api.PoolPreview
	published *api.PoolPublished
	job       *api.JobView // the publish job being followed
	gone      bool         // dismounted: stop following the job
	// atomsBatch is strategy atoms' batch size (0: the server's default).
	atomsBatch int
	// atomsCandidates is strategy atoms' candidates ("": runs).
	atomsCandidates string
	busy            bool
}

// NewPoolBuilderPage returns the page with a depth-20 pool chosen.
func NewPoolBuilderPage() *PoolBuilderPage {
	return &PoolBuilderPage{projectPage: projectPage{state: stateLoading}, chosen: map[string]bool{}, depth: 20, strategy: api.StrategyDepth, sample: newSampleChoice()}
}

// OnNav reads the project and titles the page.
func (p *PoolBuilderPage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Pool builder")
}

// OnMount loads the user and the project's runs.
func (p *PoolBuilderPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.gone = false
	// Answers are dispatched in the page's context, not the form's: a
	// dispatch from an element that a re-render replaced is dropped, and
	// the preview would then never appear (busy forever).
	cl, project := p.mountProject(ctx)
	loadWithMe(ctx, cl, func(c context.Context) ([]api.RunSummary, error) { return cl.Runs(c, project) },
		func(ctx app.Context, me api.Me, runs []api.RunSummary, err error) {
			p.me, p.runs = me, runs
			p.state, p.message = pageState(ctx, err, len(runs) == 0)
			if p.state == stateEmpty {
				p.message = "This project has no stored runs yet: run a retrieval method first."
			}
		})
}

// OnDismount stops following the publish job.
func (p *PoolBuilderPage) OnDismount() { p.gone = true }

// spec is the pool the form describes; runs in the listed order.
func (p *PoolBuilderPage) spec() api.PoolSpec {
	s := api.PoolSpec{Name: strings.TrimSpace(p.name), Depth: p.depth, Strategy: p.strategy, Probes: p.probes, RatersPerItem: p.raters}
	if p.strategy == api.StrategyCAL {
		p.cal.fill(&s)
	}
	if p.strategy == api.StrategyAtoms {
		s.AtomsBatch = p.atomsBatch
		s.AtomsCandidates = p.atomsCandidates
	}
	if p.strategy == api.StrategySample {
		// doPreview refuses a form whose sample fields do not parse.
		s.Sample, _ = p.sample.spec()
		s.Probes = false
	}
	for _, r := range p.runs {
		if p.chosen[r.Name] {
			s.Runs = append(s.Runs, r.Name)
		}
	}
	return s
}

// chooseRun adds the run of the checkbox that changed (data-run) to the
// pool or takes it out; the run is read at event time, not captured.
func (p *PoolBuilderPage) chooseRun(ctx app.Context, e app.Event) {
	p.chosen[eventData(ctx, "run")] = ctx.JSSrc().Get("checked").Bool()
	p.changed()
}

// poolNeedsRuns reports whether a pool's candidates come from runs: every
// strategy but atoms over the corpus (whose candidates are every document).
func poolNeedsRuns(s api.PoolSpec) bool {
	return s.Strategy != api.StrategyAtoms || s.AtomsCandidates != "corpus" // the candidates select's value (cal_fields.go)
}

// changed discards a preview that no longer matches the form.
func (p *PoolBuilderPage) changed() { p.preview, p.published = nil, nil }

func (p *PoolBuilderPage) doPreview(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if p.busy {
		return
	}
	s := p.spec()
	if len(s.Runs) == 0 && poolNeedsRuns(s) {
		p.preview, p.message = nil, "Choose at least one run."
		return
	}
	if p.strategy == api.StrategySample {
		if _, err := p.sample.spec(); err != nil {
			p.preview, p.message = nil, "Sample: "+err.Error()
			return
		}
	}
	p.busy, p.message = true, ""
	cl, project, page := p.client, p.project, p.page
	ctx.Async(func() {
		pv, err := cl.PreviewPool(context.Background(), project, s)
		page.Dispatch(func(ctx app.Context) {
			p.busy = false
			if err != nil {
				p.message = "Preview failed: " + err.Error()
				return
			}
			p.preview, p.published = &pv, nil
		})
	})
}

func (p *PoolBuilderPage) doPublish(ctx app.Context, e app.Event) {
	if p.busy || p.preview == nil {
		return
	}
	s := p.spec()
	p.busy, p.message = true, ""
	cl, project, page := p.client, p.project, p.page
	ctx.Async(func() {
		j, err := cl.PublishPool(context.Background(), project, s)
		page.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.busy = false
				p.message = "Publishing failed: " + err.Error()
				return
			}
			p.message = fmt.Sprintf("Publishing: job %d queued.", j.ID)
			p.followed(ctx, j)
		})
	})
}

// followed takes in the publish job's latest state: while it is unfinished
// the page asks again in half a second; once done it shows the published
// pool (the job's result).
func (p *PoolBuilderPage) followed(ctx app.Context, j api.JobView) {
	p.job = &j
	if !j.Finished() {
		if p.gone {
			return
		}
		cl, page := p.client, p.page
		ctx.After(500*time.Millisecond, func(ctx app.Context) {
			ctx.Async(func() {
				next, err := cl.Job(context.Background(), j.ID)
				page.Dispatch(func(ctx app.Context) {
					if err != nil {
						p.busy, p.job = false, nil
						p.message = fmt.Sprintf("Could not follow job %d (see the setup page): %v", j.ID, err)
						return
					}
					p.followed(ctx, next)
				})
			})
		})
		return
	}
	p.busy, p.job = false, nil
	switch j.State {
	case api.JobDone:
		var res api.PoolPublished
		if err := json.Unmarshal(j.Result, &res); err != nil {
			p.message = fmt.Sprintf("Job %d is done, but its result is unreadable: %v", j.ID, err)
			return
		}
		p.published = &res
		p.message = publishedMessage(res)
	case api.JobCancelled:
		p.message = "Publishing cancelled: nothing was published."
	default:
		p.message = fmt.Sprintf("Publishing failed (job %d %s): %s", j.ID, j.State, j.Error)
	}
}

// publishedMessage says what a publish created and, when it created fewer
// relevance items than the pool has documents (a cal publish said "0 new
// items" without why), why: already items of the project (judged or
// queued from an earlier pool: publishing never duplicates them), or no
// stored text.
func publishedMessage(res api.PoolPublished) string {
	pv := res.Preview
	if pv.Strategy == api.StrategyAtoms {
		return fmt.Sprintf("Published pool %d: %d constraint items in its first batch, %d raters per item; the next batches follow the labels.", res.PoolID, res.ItemsCreated, res.RatersPerItem)
	}
	msg := fmt.Sprintf("Published pool %d: %s, %d raters per item.", res.PoolID, plural(res.ItemsCreated, "new relevance item", "new relevance items"), res.RatersPerItem)
	if s := pv.Sample; s != nil {
		msg = fmt.Sprintf("Published sampled pool %d: %s for the %d documents drawn; %d judged before count with probability 1.",
			res.PoolID, plural(res.ItemsCreated, "new relevance item", "new relevance items"), s.New, s.JudgedBefore)
	}
	switch existing := pv.Items - res.NoDocText - res.ItemsCreated; {
	case pv.Items == 0 && pv.Strategy == api.StrategyCAL:
		msg += " Nothing was new: active learning chose no document for a first batch (no query has candidates)."
	case pv.Items == 0:
		msg += " Nothing was new: the pool is empty (no chosen run has documents for the queries within the depth)."
	case existing > 0 || res.NoDocText > 0:
		var why []string
		if existing > 0 {
			why = append(why, fmt.Sprintf("%d already were items of this project (judged or queued from an earlier pool; never duplicated)", existing))
		}
		if res.NoDocText > 0 {
			why = append(why, fmt.Sprintf("%d have no stored text", res.NoDocText))
		}
		msg += fmt.Sprintf(" Of the pool's %s, %s.", plural(pv.Items, "document", "documents"), strings.Join(why, " and "))
	}
	return msg
}

// cancelPublish cancels the publish job; the page sees it end.
func (p *PoolBuilderPage) cancelPublish(ctx app.Context, e app.Event) {
	if p.job == nil {
		return
	}
	cl, id, page := p.client, p.job.ID, p.page
	ctx.Async(func() {
		_, err := cl.CancelJob(context.Background(), id)
		if err != nil {
			page.Dispatch(func(ctx app.Context) { p.message = "Could not cancel the job: " + err.Error() })
		}
	})
}

// renderJob shows the publish job's progress while it runs.
func (p *PoolBuilderPage) renderJob(j api.JobView) app.UI {
	return app.Section().ID("pool-job").DataSet("job", j.ID).DataSet("state", j.State).Aria("label", "Publishing").Body(
		app.H2().Textf("Publishing (job %d)", j.ID),
		app.Div().Body(jobProgress(j)...),
		app.Button().Type("button").ID("pool-job-cancel").Class("link").OnClick(p.cancelPublish).Text("Cancel"),
	)
}

// Render draws the page.
func (p *PoolBuilderPage) Render() app.UI {
	return NewPage("poolbuilder").State(p.state).Data("previewed", p.preview != nil).Data("published", p.published != nil).
		ClientSide(p.mounted).Nav(p.me, "pools", p.project).
		Title("Pool builder · "+p.project, app.A().Href("/queries/"+p.project).Text("Query expressions")).
		Content(
			// Always present (empty when there is nothing to say): a live
			// region is announced when its text changes, and the form
			// after it keeps its place in the tree.
			liveNotice("pool-message", p.message),
			app.If(len(p.runs) > 0, func() app.UI { return p.renderForm() }),
			app.If(p.job != nil, func() app.UI { return p.renderJob(*p.job) }),
			app.If(p.preview != nil, func() app.UI { return p.renderPreview(*p.preview) }),
		)
}

func (p *PoolBuilderPage) renderForm() app.UI {
	return app.Section().Aria("label", "Pool").Body(
		app.Form().ID("pool-form").OnSubmit(p.doPreview).Body(
			app.FieldSet().Body(
				app.Legend().Text("Runs"),
				app.Table().ID("pool-runs").Body(
					app.THead().Body(app.Tr().Body(
						app.Th().Scope("col").Text("Pool"), app.Th().Scope("col").Text("Run"),
						app.Th().Scope("col").Text("Method"), app.Th().Scope("col").Text("Queries"), app.Th().Scope("col").Text("Results"),
					)),
					app.TBody().Body(app.Range(p.runs).Slice(func(i int) app.UI {
						r := p.runs[i]
						id := "run-" + strconv.Itoa(i)
						return app.Tr().Body(
							app.Td().Body(app.Input().Type("checkbox").ID(id).DataSet("run", r.Name).Checked(p.chosen[r.Name]).
								OnChange(p.chooseRun)),
							app.Td().Body(app.Label().For(id).Text(r.Name)),
							app.Td().Text(r.Method),
							app.Td().Class("num").Text(r.Queries),
							app.Td().Class("num").Text(r.Results),
						)
					})),
				),
			),
			app.Div().Class("field").Body(
				app.Label().For("pool-name").Text("Name (optional)"),
				app.Input().ID("pool-name").Type("text").Value(p.name).
					OnInput(func(ctx app.Context, e app.Event) { p.name = ctx.JSSrc().Get("value").String(); p.changed() }),
			),
			app.Div().Class("field").Body(
				app.Label().For("pool-depth").Text("Depth (top k of each run; strategy sample: its deepest rank stratum)"),
				app.Input().ID("pool-depth").Type("number").Min(1).Max(1000).Value(p.depth).Disabled(p.strategy == api.StrategySample).
					OnInput(func(ctx app.Context, e app.Event) {
						p.depth, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
						p.changed()
					}),
			),
			app.Div().Class("field").Body(
				app.Label().For("pool-strategy").Text("Strategy"),
				app.Select().ID("pool-strategy").OnChange(func(ctx app.Context, e app.Event) {
					p.strategy = ctx.JSSrc().Get("value").String()
					p.changed()
				}).Body(
					app.Option().Value(api.StrategyDepth).Selected(p.strategy == api.StrategyDepth).Text("depth — every document in the top k"),
					app.Option().Value(api.StrategyMTF).Selected(p.strategy == api.StrategyMTF).Text("mtf — move-to-front priority"),
					app.Option().Value(api.StrategyBandit).Selected(p.strategy == api.StrategyBandit).Text("bandit — adaptive priority"),
					app.Option().Value(api.StrategyCAL).Selected(p.strategy == api.StrategyCAL).Text("cal — active learning over the whole corpus, growing as judgments arrive"),
					app.Option().Value(api.StrategyAtoms).Selected(p.strategy == api.StrategyAtoms).Text("atoms — constraint items (atom, document) in batches, growing as they are labelled"),
					app.Option().Value(api.StrategySample).Selected(p.strategy == api.StrategySample).Text("sample — a stratified random sample with inclusion probabilities, for unbiased estimates"),
				),
			),
			app.If(p.strategy == api.StrategySample, func() app.UI { return p.sample.render(p.changed) }),
			app.If(p.strategy == api.StrategyCAL, func() app.UI { return p.cal.render(p.changed) }),
			app.If(p.strategy == api.StrategyAtoms, func() app.UI { return renderAtomsFields(&p.atomsBatch, &p.atomsCandidates, p.changed) }),
			app.Div().Class("field").Body(
				app.Input().ID("pool-probes").Type("checkbox").Checked(p.probes && p.strategy != api.StrategySample).Disabled(p.strategy == api.StrategySample).
					OnChange(func(ctx app.Context, e app.Event) { p.probes = ctx.JSSrc().Get("checked").Bool(); p.changed() }),
				app.Label().For("pool-probes").Text(" Add logic probes (documents that satisfy some atoms but not the expression)"),
			),
			app.Div().Class("field").Body(
				app.Label().For("pool-raters").Text("Raters per item (empty: keep the project's)"),
				app.Input().ID("pool-raters").Type("number").Min(1).Max(20).Value(map[bool]string{true: "", false: strconv.Itoa(p.raters)}[p.raters == 0]).
					OnInput(func(ctx app.Context, e app.Event) {
						p.raters, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
						p.changed()
					}),
			),
			app.Button().Type("submit").ID("pool-preview").Disabled(p.busy).Text("Preview"),
			app.Button().Type("button").ID("pool-publish").Class("primary").Disabled(p.busy || p.preview == nil || p.published != nil).
				OnClick(p.doPublish).Text("Publish"),
		),
	)
}

func (p *PoolBuilderPage) renderPreview(pv api.PoolPreview) app.UI {
	c := pv.Composition
	var ks []int
	for _, byK := range pv.JudgedAtK {
		for k := range byK {
			ks = append(ks, k)
		}
		break
	}
	sort.Ints(ks)
	return app.Section().ID("pool-preview-result").Aria("label", "Composition").Body(
		app.H2().Text("Composition"),
		app.P().ID("pool-totals").Textf("%d items over %d queries · %d carry a probe label, %d found only by probes",
			c.Items, c.Queries, c.ProbeItems, c.ProbeOnly),
		app.If(pv.Strategy == api.StrategyCAL, func() app.UI { return calOrigins(c) }),
		app.If(pv.Strategy == api.StrategyAtoms, func() app.UI { return atomsOrigins(!poolNeedsRuns(p.spec())) }),
		app.If(pv.Sample != nil, func() app.UI { return sampleSummary(*pv.Sample) }),
		app.Table().ID("pool-composition").Body(
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Run"), app.Th().Scope("col").Text("Items"), app.Th().Scope("col").Text("Unique"),
				app.Range(ks).Slice(func(i int) app.UI { return app.Th().Scope("col").Textf("Judged@%d", ks[i]) }),
			)),
			app.TBody().Body(app.Range(c.Runs).Slice(func(i int) app.UI {
				r := c.Runs[i]
				return app.Tr().DataSet("run", r.Run).Body(
					app.Th().Scope("row").Text(r.Run),
					app.Td().Class("num").Text(r.Contributed),
					app.Td().Class("num").Text(r.Unique),
					app.Range(ks).Slice(func(j int) app.UI {
						return app.Td().Class("num").Textf("%.2f", pv.JudgedAtK[r.Run][ks[j]])
					}),
				)
			})),
		),
		app.If(len(c.Runs) > 1, func() app.UI {
			return app.Table().ID("pool-overlap").Body(
				app.Caption().Text("Overlap: items found by both runs"),
				app.THead().Body(app.Tr().Body(
					app.Th().Text(""),
					app.Range(c.Runs).Slice(func(i int) app.UI { return app.Th().Scope("col").Text(c.Runs[i].Run) }),
				)),
				app.TBody().Body(app.Range(c.Runs).Slice(func(i int) app.UI {
					return app.Tr().Body(
						app.Th().Scope("row").Text(c.Runs[i].Run),
						app.Range(c.Runs).Slice(func(j int) app.UI {
							v := 0
							if i < len(c.Overlap) && j < len(c.Overlap[i]) {
								v = c.Overlap[i][j]
							}
							return app.Td().Class("num").Text(v)
						}),
					)
				})),
			)
		}),
	)
}
