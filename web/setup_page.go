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

// SetupPage is where researchers set projects up (/setup, and
// /setup/:project for one project): create a project, import files through
// the same importers as `boolpool import`, and run encoders and retrieval
// methods as background jobs whose progress (done/total, rate, state,
// error) the page polls while any job is unfinished.
type SetupPage struct {
	app.Compo
	me       api.Me
	project  string // "" = the project list
	projects []api.ProjectView
	options  api.SetupOptions
	jobs     []api.JobView
	state    string
	message  string
	mounted  bool
	gone     bool
	polling  bool
	client   *Client

	newProject api.NewProjectRequest
	createMsg  string

	format    string
	runName   string
	importing bool
	imported  *api.ImportResult
	importErr string

	method    string
	params    string
	depth     int
	jobName   string
	encoder   string
	reset     bool
	jobMsg    string
	submitted bool
	allJobs   bool // list every job, not the jobsPage most recent
	moreJobs  bool // older jobs exist than those listed
}

// jobsPage is how many of the most recent jobs the page lists until the
// researcher asks for all of them (at most maxJobs).
const (
	jobsPage = 50
	maxJobs  = 10000
)

// jobsLimit is how many jobs to ask for: one more than listed, to know
// whether older ones exist.
func jobsLimit(all bool) int {
	if all {
		return maxJobs
	}
	return jobsPage + 1
}

// cutJobs keeps the listed jobs and says whether older ones exist.
func cutJobs(js []api.JobView, all bool) ([]api.JobView, bool) {
	if !all && len(js) > jobsPage {
		return js[:jobsPage], true
	}
	return js, false
}

// NewSetupPage returns the page.
func NewSetupPage() *SetupPage {
	return &SetupPage{state: stateLoading, format: "quest", method: "bm25", depth: 1000}
}

// OnNav reads the project from the URL and titles the page.
func (p *SetupPage) OnNav(ctx app.Context) {
	previous := p.project
	p.project = setupProject(ctx.Page().URL().Path)
	if app.IsClient && p.mounted && p.project != previous {
		// go-app keeps this component when navigating between /setup
		// pages: load the new project's jobs and the fresh project list.
		p.jobs, p.jobMsg, p.imported, p.importErr, p.allJobs, p.moreJobs = nil, "", nil, "", false, false
		p.load(ctx)
	}
	title := "Project setup · boolpool"
	if p.project != "" {
		title = "Setup · " + p.project + " · boolpool"
	}
	ctx.Page().SetTitle(title)
}

// setupProject is the project of a /setup/:project path ("" for /setup).
func setupProject(path string) string {
	rest := strings.TrimPrefix(strings.TrimRight(path, "/"), "/setup")
	return strings.TrimPrefix(rest, "/")
}

// OnMount loads the user, the projects, the options and the jobs.
func (p *SetupPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mounted, p.gone = true, false
	p.project = setupProject(ctx.Page().URL().Path)
	p.client = NewClient()
	// Polling runs in the page's context, not a button's: the button may
	// leave the page (a finished job loses its Cancel button), and a
	// dispatch from an unmounted element is dropped.
	ctx.Handle(actionSetupPoll, func(ctx app.Context, a app.Action) {
		ctx.Dispatch(func(ctx app.Context) { p.poll(ctx) })
	})
	ctx.Handle(actionSetupReload, func(ctx app.Context, a app.Action) {
		ctx.Dispatch(func(ctx app.Context) { p.load(ctx) })
	})
	p.load(ctx)
}

// actionSetupPoll starts polling the jobs if any is unfinished, and
// actionSetupReload loads the page's data again (in the page's context).
const (
	actionSetupPoll   = "setup/poll"
	actionSetupReload = "setup/reload"
)

// OnDismount stops the polling.
func (p *SetupPage) OnDismount() { p.gone = true }

func (p *SetupPage) load(ctx app.Context) {
	cl, project, all := p.client, p.project, p.allJobs
	ctx.Async(func() {
		c := context.Background()
		me, err := cl.Me(c)
		var projects []api.ProjectView
		var opts api.SetupOptions
		var jobs []api.JobView
		if err == nil {
			projects, err = cl.Projects(c)
		}
		if err == nil {
			opts, err = cl.SetupOptions(c)
		}
		if err == nil && project != "" {
			jobs, err = cl.Jobs(c, project, jobsLimit(all))
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.me, p.projects, p.options = me, projects, opts
			p.jobs, p.moreJobs = cutJobs(jobs, all)
			p.state, p.message = pageState(ctx, err, false)
			if len(opts.Encoders) > 0 && p.encoder == "" {
				p.encoder = opts.Encoders[0]
			}
			p.poll(ctx)
		})
	})
}

// poll refreshes the jobs every second while one is unfinished (or one was
// just submitted and has not shown up yet).
func (p *SetupPage) poll(ctx app.Context) {
	if p.polling || p.gone || p.project == "" || !(p.submitted || anyUnfinished(p.jobs)) {
		return
	}
	p.polling = true
	cl, project, all := p.client, p.project, p.allJobs
	ctx.After(time.Second, func(ctx app.Context) {
		ctx.Async(func() {
			jobs, err := cl.Jobs(context.Background(), project, jobsLimit(all))
			var projects []api.ProjectView
			if err == nil {
				projects, err = cl.Projects(context.Background())
			}
			ctx.Dispatch(func(ctx app.Context) {
				p.polling, p.submitted = false, false
				if err != nil {
					p.jobMsg = "Could not refresh the jobs: " + err.Error()
					return
				}
				p.projects = projects
				p.jobs, p.moreJobs = cutJobs(jobs, all)
				p.poll(ctx)
			})
		})
	})
}

func anyUnfinished(js []api.JobView) bool {
	for _, j := range js {
		if !j.Finished() {
			return true
		}
	}
	return false
}

func (p *SetupPage) create(ctx app.Context, e app.Event) {
	e.PreventDefault()
	cl, req := p.client, p.newProject
	ctx.Async(func() {
		pv, err := cl.CreateProject(context.Background(), req)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.createMsg = "Could not create the project: " + err.Error()
				return
			}
			p.newProject = api.NewProjectRequest{}
			// The page stays mounted across this navigation (same
			// component): add the project now, and OnNav reloads the rest.
			p.projects = append(p.projects, pv)
			p.me.Projects = append(p.me.Projects, pv.Name)
			ctx.Navigate("/setup/" + pv.Name)
		})
	})
}

func (p *SetupPage) upload(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if p.importing {
		return
	}
	input := app.Window().GetElementByID("import-files")
	if input.Get("files").Length() == 0 {
		p.importErr = "Choose one or more files first."
		return
	}
	p.importing, p.imported, p.importErr = true, nil, ""
	cl, project, format, runName := p.client, p.project, p.format, strings.TrimSpace(p.runName)
	ctx.Async(func() {
		res, err := cl.Upload(context.Background(), project, format, runName, input)
		var projects []api.ProjectView
		if err == nil {
			projects, _ = cl.Projects(context.Background())
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.importing = false
			if err != nil {
				p.importErr = "Import failed: " + err.Error()
				return
			}
			p.imported = &res
			if projects != nil {
				p.projects = projects
			}
		})
	})
}

func (p *SetupPage) startRetrieval(ctx app.Context, e app.Event) {
	e.PreventDefault()
	params, err := parseParams(p.params)
	if err != nil {
		p.jobMsg = err.Error()
		return
	}
	raw, _ := json.Marshal(api.RetrieveJobParams{Method: p.method, Params: params, Depth: p.depth, Name: strings.TrimSpace(p.jobName)})
	p.start(ctx, api.JobRequest{Kind: api.JobKindRetrieve, Params: raw})
}

func (p *SetupPage) startEncode(ctx app.Context, e app.Event) {
	e.PreventDefault()
	raw, _ := json.Marshal(api.EncodeJobParams{Encoder: p.encoder, Reset: p.reset})
	p.start(ctx, api.JobRequest{Kind: api.JobKindEncode, Params: raw})
}

func (p *SetupPage) start(ctx app.Context, req api.JobRequest) {
	p.jobMsg = ""
	cl, project := p.client, p.project
	ctx.Async(func() {
		j, err := cl.StartJob(context.Background(), project, req)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.jobMsg = "Could not start the job: " + err.Error()
				return
			}
			p.jobMsg = fmt.Sprintf("Job %d queued.", j.ID)
			p.jobs = append([]api.JobView{j}, p.jobs...)
			p.submitted = true
			ctx.NewAction(actionSetupPoll)
		})
	})
}

// cancelRow cancels the job of the Cancel button clicked (data-job); the
// job is read at event time, not captured: go-app keeps a row position's
// first handler closure across re-renders.
func (p *SetupPage) cancelRow(ctx app.Context, e app.Event) {
	if id, err := strconv.ParseInt(eventData(ctx, "job"), 10, 64); err == nil {
		p.cancel(ctx, id)
	}
}

func (p *SetupPage) cancel(ctx app.Context, id int64) {
	cl := p.client
	ctx.Async(func() {
		_, err := cl.CancelJob(context.Background(), id)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.jobMsg = "Could not cancel the job: " + err.Error()
				return
			}
			p.submitted = true
			ctx.NewAction(actionSetupPoll)
		})
	})
}

// parseParams reads "k=v, k=v".
func parseParams(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("parameters: %q is not k=v", part)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// Render draws the page.
func (p *SetupPage) Render() app.UI {
	title := "Project setup"
	if p.project != "" {
		title += " · " + p.project
	}
	return NewPage("setup").State(p.state).Data("project", p.project).ClientSide(p.mounted).
		Nav(p.me, "setup", p.project).
		Title(title, app.If(p.project != "", func() app.UI { return app.A().Href("/setup").Text("All projects") })).
		Content(
			app.If(p.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(p.message) }),
			app.If(p.state == stateReady && p.project == "", func() app.UI { return p.renderProjects() }),
			app.If(p.state == stateReady && p.project != "", func() app.UI {
				return app.Div().Body(p.renderCounts(), p.renderImport(), p.renderJobForms(), p.renderJobs(), &CrowdPanel{Project: p.project})
			}),
		)
}

func (p *SetupPage) renderProjects() app.UI {
	return app.Div().Body(
		app.Section().Aria("label", "Projects").Body(
			app.H2().Text("Projects"),
			app.If(len(p.projects) == 0, func() app.UI { return app.P().Class("notice").Text("No projects yet: create one below.") }),
			app.If(len(p.projects) > 0, func() app.UI {
				return app.Table().ID("setup-projects").Body(
					app.THead().Body(app.Tr().Body(app.Th().Text("Project"), app.Th().Text("Documents"), app.Th().Text("Queries"),
						app.Th().Text("Qrels"), app.Th().Text("Runs"))),
					app.TBody().Body(app.Range(p.projects).Slice(func(i int) app.UI {
						pr := p.projects[i]
						return app.Tr().DataSet("project", pr.Name).Body(
							app.Td().Body(app.A().Href("/setup/"+pr.Name).Text(pr.Name)),
							app.Td().Class("num").Text(pr.Counts.Documents), app.Td().Class("num").Text(pr.Counts.Queries),
							app.Td().Class("num").Text(pr.Counts.Qrels), app.Td().Class("num").Text(pr.Counts.Runs),
						)
					})),
				)
			}),
		),
		app.Form().ID("new-project").OnSubmit(p.create).Body(
			app.H2().Text("New project"),
			app.Div().Class("field").Body(
				app.Label().For("project-name").Text("Name (lowercase letters, digits, - and _; used in URLs)"),
				app.Input().ID("project-name").Type("text").Required(true).Pattern("[a-z0-9][a-z0-9_-]*").Value(p.newProject.Name).
					OnInput(func(ctx app.Context, e app.Event) { p.newProject.Name = ctx.JSSrc().Get("value").String() }),
			),
			app.Div().Class("field").Body(
				app.Label().For("project-title").Text("Title (optional)"),
				app.Input().ID("project-title").Type("text").Value(p.newProject.Title).
					OnInput(func(ctx app.Context, e app.Event) { p.newProject.Title = ctx.JSSrc().Get("value").String() }),
			),
			app.Button().Type("submit").ID("project-create").Class("primary").Text("Create project"),
			app.If(p.createMsg != "", func() app.UI { return app.P().ID("create-message").Class("notice").Role("alert").Text(p.createMsg) }),
		),
	)
}

func (p *SetupPage) current() (api.ProjectView, bool) {
	for _, pr := range p.projects {
		if pr.Name == p.project {
			return pr, true
		}
	}
	return api.ProjectView{}, false
}

func (p *SetupPage) renderCounts() app.UI {
	pr, ok := p.current()
	if !ok {
		return app.P().Class("notice").Text("This project is not one of yours.")
	}
	c := pr.Counts
	return app.P().ID("setup-counts").DataSet("documents", c.Documents).DataSet("queries", c.Queries).
		Textf("%d documents · %d queries · %d qrels · %d runs · %d judgments", c.Documents, c.Queries, c.Qrels, c.Runs, c.Judgments)
}

func (p *SetupPage) renderImport() app.UI {
	return app.Section().ID("import").Aria("label", "Import files").Body(
		app.H2().Text("Import files"),
		app.P().Class("hint").Text("Each file is imported in one transaction: a bad line rejects that whole file and names its line and field. QUEST documents before queries; BEIR takes corpus.jsonl, queries.jsonl and qrels .tsv files together; .gz files are read as they are."),
		app.Form().ID("import-form").OnSubmit(p.upload).Body(
			selectField("import-format", "Format", p.options.Formats, p.format, func(v string) { p.format = v }),
			app.Div().Class("field").Body(
				app.Label().For("import-files").Text("Files"),
				app.Input().ID("import-files").Type("file").Multiple(true),
			),
			app.If(p.format == "trec-run", func() app.UI {
				return app.Div().Class("field").Body(
					app.Label().For("import-run-name").Text("Run name (default: the file name)"),
					app.Input().ID("import-run-name").Type("text").Value(p.runName).
						OnInput(func(ctx app.Context, e app.Event) { p.runName = ctx.JSSrc().Get("value").String() }),
				)
			}),
			app.Button().Type("submit").ID("import-submit").Class("primary").Disabled(p.importing).
				Text(map[bool]string{true: "Importing…", false: "Import"}[p.importing]),
		),
		app.If(p.importErr != "", func() app.UI { return app.P().ID("import-error").Class("error").Role("alert").Text(p.importErr) }),
		app.If(p.imported != nil, func() app.UI {
			res := p.imported
			return app.Table().ID("import-result").Body(
				app.Caption().Text("Imported"),
				app.THead().Body(app.Tr().Body(app.Th().Text("File"), app.Th().Text("Kind"), app.Th().Text("Documents"),
					app.Th().Text("Queries"), app.Th().Text("Qrels"), app.Th().Text("Run lines"), app.Th().Text("Notes"))),
				app.TBody().Body(app.Range(res.Files).Slice(func(i int) app.UI {
					f := res.Files[i]
					return app.Tr().DataSet("file", f.File).Body(app.Td().Text(f.File), app.Td().Text(f.Kind),
						app.Td().Class("num").Text(f.Documents), app.Td().Class("num").Text(f.Queries),
						app.Td().Class("num").Text(f.Qrels), app.Td().Class("num").Text(f.RunResults),
						app.Td().Text(strings.Join(importNotes(f), "; ")))
				})),
			)
		}),
	)
}

// importNotes are a file's notes, then the fields it had that were not
// imported (with how many records had each), in name order.
func importNotes(f api.ImportedFile) []string {
	notes := append([]string{}, f.Notes...)
	if len(f.Ignored) == 0 {
		return notes
	}
	names := make([]string, 0, len(f.Ignored))
	for k := range f.Ignored {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%q (%d)", k, f.Ignored[k]))
	}
	return append(notes, "ignored fields (present, not imported; records): "+strings.Join(parts, ", "))
}

func (p *SetupPage) methodOption(name string) api.MethodOption {
	for _, m := range p.options.Methods {
		if m.Name == name {
			return m
		}
	}
	return api.MethodOption{}
}

func (p *SetupPage) hasKind(k string) bool {
	for _, x := range p.options.JobKinds {
		if x == k {
			return true
		}
	}
	return false
}

func (p *SetupPage) renderJobForms() app.UI {
	m := p.methodOption(p.method)
	defaults := "none"
	if len(m.Params) > 0 {
		var kv []string
		for _, prm := range m.Params {
			kv = append(kv, prm.Name+"="+prm.Default)
		}
		defaults = strings.Join(kv, ", ")
	}
	return app.Section().ID("run-jobs").Aria("label", "Run encoders and retrieval methods").Body(
		app.H2().Text("Run encoders and retrieval methods"),
		app.If(len(p.options.JobKinds) == 0, func() app.UI {
			return app.P().Class("notice").Text("This server runs no background jobs; use boolpool encode and boolpool retrieve.")
		}),
		app.If(p.hasKind(api.JobKindEncode), func() app.UI {
			return app.Form().ID("encode-form").OnSubmit(p.startEncode).Body(
				app.H3().Text("Encode documents and queries"),
				selectField("encode-encoder", "Encoder", p.options.Encoders, p.encoder, func(v string) { p.encoder = v }),
				app.Div().Class("field").Body(
					app.Input().ID("encode-reset").Type("checkbox").Checked(p.reset).
						OnChange(func(ctx app.Context, e app.Event) { p.reset = ctx.JSSrc().Get("checked").Bool() }),
					app.Label().For("encode-reset").Text(" Embed everything again (drop this project's vectors first)"),
				),
				app.Button().Type("submit").ID("encode-start").Text("Start encoding"),
			)
		}),
		app.If(p.hasKind(api.JobKindRetrieve), func() app.UI {
			return app.Form().ID("retrieve-form").OnSubmit(p.startRetrieval).Body(
				app.H3().Text("Retrieve"),
				app.Div().Class("field").Body(
					app.Label().For("retrieve-method").Text("Method"),
					app.Select().ID("retrieve-method").OnChange(func(ctx app.Context, e app.Event) {
						p.method, p.params = ctx.JSSrc().Get("value").String(), ""
					}).Body(
						app.Range(p.options.Methods).Slice(func(i int) app.UI {
							o := p.options.Methods[i]
							return app.Option().Value(o.Name).Selected(o.Name == p.method).Text(o.Name + " (" + o.Needs + ")")
						}),
					),
					app.Span().Class("hint").Text(m.Summary),
				),
				app.Div().Class("field").Body(
					app.Label().For("retrieve-params").Text("Parameters (k=v, comma-separated; defaults: "+defaults+")"),
					app.Input().ID("retrieve-params").Type("text").Value(p.params).
						OnInput(func(ctx app.Context, e app.Event) { p.params = ctx.JSSrc().Get("value").String() }),
				),
				app.Div().Class("field").Body(
					app.Label().For("retrieve-depth").Text("Depth (results per query)"),
					app.Input().ID("retrieve-depth").Type("number").Min(1).Max(10000).Value(p.depth).
						OnInput(func(ctx app.Context, e app.Event) { p.depth, _ = strconv.Atoi(ctx.JSSrc().Get("value").String()) }),
				),
				app.Div().Class("field").Body(
					app.Label().For("retrieve-name").Text("Run name (optional)"),
					app.Input().ID("retrieve-name").Type("text").Value(p.jobName).
						OnInput(func(ctx app.Context, e app.Event) { p.jobName = ctx.JSSrc().Get("value").String() }),
				),
				app.Button().Type("submit").ID("retrieve-start").Class("primary").Text("Start retrieval"),
			)
		}),
		app.If(p.jobMsg != "", func() app.UI { return app.P().ID("job-message").Class("notice").Role("status").Text(p.jobMsg) }),
	)
}

// showAllJobs lists every job of the project (reloading the page's data).
func (p *SetupPage) showAllJobs(ctx app.Context, e app.Event) {
	p.allJobs = true
	ctx.NewAction(actionSetupReload)
}

func (p *SetupPage) renderJobs() app.UI {
	return app.Section().ID("jobs").Aria("label", "Jobs").Body(
		app.H2().Text("Jobs"),
		app.If(len(p.jobs) == 0, func() app.UI { return app.P().Class("notice").Text("No jobs yet.") }),
		app.If(p.moreJobs, func() app.UI {
			return app.P().ID("jobs-count").Body(
				app.Textf("The %d most recent jobs are listed; there are older ones. ", len(p.jobs)),
				app.Button().Type("button").ID("jobs-all").Class("link").OnClick(p.showAllJobs).Text("Show all jobs"),
			)
		}),
		app.If(p.allJobs && len(p.jobs) > 0, func() app.UI {
			return app.P().ID("jobs-count").Textf("All %d jobs.", len(p.jobs))
		}),
		app.If(len(p.jobs) > 0, func() app.UI {
			return app.Table().ID("job-list").Body(
				app.THead().Body(app.Tr().Body(app.Th().Text("Job"), app.Th().Text("What"), app.Th().Text("State"),
					app.Th().Text("Progress"), app.Th().Text("Rate"), app.Th().Text("Started"), app.Th().Text(""))),
				app.TBody().Body(app.Range(p.jobs).Slice(func(i int) app.UI { return p.renderJob(p.jobs[i]) })),
			)
		}),
	)
}

func (p *SetupPage) renderJob(j api.JobView) app.UI {
	started := ""
	if j.StartedAt != nil {
		started = j.StartedAt.Local().Format("15:04:05")
	}
	rate := ""
	if j.Rate > 0 {
		rate = fmt.Sprintf("%.1f/s", j.Rate)
	}
	return app.Tr().DataSet("job", j.ID).DataSet("state", j.State).DataSet("done", j.Done).DataSet("total", j.Total).Body(
		app.Td().Textf("%d", j.ID),
		app.Td().Text(jobWhat(j)),
		app.Td().Body(
			app.Span().Class("job-state "+j.State).Text(j.State),
			app.If(j.Error != "", func() app.UI { return app.Div().Class("error").Role("alert").Text(j.Error) }),
		),
		app.Td().Body(jobProgress(j)...),
		app.Td().Class("num").Text(rate),
		app.Td().Text(started),
		app.Td().Body(app.If(!j.Finished(), func() app.UI {
			return app.Button().Type("button").Class("link").DataSet("job", j.ID).Text("Cancel").OnClick(p.cancelRow)
		})),
	)
}

// jobProgress draws a job's progress: a bar of done/total and its phase
// (the setup page's job list and the pool builder).
func jobProgress(j api.JobView) []app.UI {
	pct := 0
	if j.Total > 0 {
		pct = int(j.Done * 100 / j.Total)
	}
	if j.State == api.JobDone {
		pct = 100
	}
	return []app.UI{
		app.Div().Class("progress-track").Role("progressbar").Aria("label", fmt.Sprintf("Job %d", j.ID)).
			Aria("valuemin", 0).Aria("valuemax", j.Total).Aria("valuenow", j.Done).
			Body(app.Div().Class("progress-fill").Style("width", "%d%%", pct)),
		app.Span().Class("progress-label").Text(jobProgressText(j)),
	}
}

// jobWhat names what a job runs ("retrieve bm25", "encode minilm-static").
func jobWhat(j api.JobView) string {
	switch j.Kind {
	case api.JobKindRetrieve:
		var rp api.RetrieveJobParams
		_ = json.Unmarshal(j.Params, &rp)
		return "retrieve " + rp.Method
	case api.JobKindEncode:
		var ep api.EncodeJobParams
		_ = json.Unmarshal(j.Params, &ep)
		return "encode " + ep.Encoder
	case api.JobKindIndex:
		var ip api.IndexJobParams
		_ = json.Unmarshal(j.Params, &ip)
		if ip.Encoder != "" {
			return "index BM25 + HNSW " + ip.Encoder
		}
		return "index BM25"
	case api.JobKindPool:
		var ps api.PoolSpec
		_ = json.Unmarshal(j.Params, &ps)
		return "publish pool " + ps.Name
	}
	return j.Kind
}

func jobProgressText(j api.JobView) string {
	phase := j.Phase
	if phase == "" {
		phase = j.State
	}
	if j.Total > 0 {
		return fmt.Sprintf("%s: %d / %d", phase, j.Done, j.Total)
	}
	return phase
}
