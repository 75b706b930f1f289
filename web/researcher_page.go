package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// ResearcherPage is the researchers' start page: per-project judging
// progress with links to each project's live dashboard and adjudication
// queue, pool builder, query-expression editor and setup page (imports
// and background jobs).
type ResearcherPage struct {
	app.Compo
	me      api.Me
	stats   []api.ProjectStats
	state   string
	message string
	mounted bool
}

// NewResearcherPage returns the page.
func NewResearcherPage() *ResearcherPage { return &ResearcherPage{state: stateLoading} }

// OnNav titles the page.
func (p *ResearcherPage) OnNav(ctx app.Context) { ctx.Page().SetTitle("Researcher · boolpool") }

// OnMount loads the user and their projects' stats.
func (p *ResearcherPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mounted = true
	cl := NewClient()
	ctx.Async(func() {
		c := context.Background()
		me, err := cl.Me(c)
		var stats []api.ProjectStats
		if err == nil {
			for _, pr := range me.Projects {
				st, serr := cl.Stats(c, pr)
				if serr != nil {
					err = serr
					break
				}
				stats = append(stats, st)
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.me, p.stats = me, stats
			p.state, p.message = pageState(ctx, err, len(stats) == 0)
		})
	})
}

// pageState maps a load result to a page state and message, sending
// signed-out users to the login page.
func pageState(ctx app.Context, err error, empty bool) (string, string) {
	switch {
	case StatusOf(err) == 401:
		ctx.Navigate("/login?next=" + ctx.Page().URL().Path)
		return stateLoading, ""
	case StatusOf(err) == 403:
		return stateError, "Your role cannot open this page."
	case err != nil:
		return stateError, err.Error()
	case empty:
		return stateEmpty, "Nothing here yet."
	}
	return stateReady, ""
}

// Render draws the page.
func (p *ResearcherPage) Render() app.UI {
	return NewPage("researcher").State(p.state).ClientSide(p.mounted).Nav(p.me, "researcher", "").
		Title("Projects", app.A().Href("/setup").ID("setup-link").Text("Set up a project: create, import, run encoders and retrieval")).
		Content(
			app.If(p.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(p.message) }),
			app.If(p.state == stateReady, func() app.UI {
				return app.Table().ID("project-stats").Body(
					app.THead().Body(app.Tr().Body(app.Th().Text("Project"), app.Th().Text("Items"), app.Th().Text("Judgments"),
						app.Th().Text("Contradictions"), app.Th().Text("Annotators"), app.Th().Text("Pages"))),
					app.TBody().Body(app.Range(p.stats).Slice(func(i int) app.UI {
						s := p.stats[i]
						return app.Tr().Body(app.Td().Text(s.Project), app.Td().Text(s.Items), app.Td().Text(s.Judgments),
							app.Td().Text(s.Contradictions), app.Td().Text(s.Annotators),
							app.Td().Body(app.A().Href("/dashboard/"+s.Project).Text("Dashboard"), app.Text(" · "),
								app.A().Href("/adjudicate/"+s.Project).Text("Adjudication"), app.Text(" · "),
								app.A().Href("/review/"+s.Project).Text("Review"), app.Text(" · "),
								app.A().Href("/browse/"+s.Project).Text("Browse"), app.Text(" · "),
								app.A().Href("/pools/"+s.Project).Text("Pools"), app.Text(" · "),
								app.A().Href("/queries/"+s.Project).Text("Queries"), app.Text(" · "),
								app.A().Href("/setup/"+s.Project).Text("Setup")))
					})),
				)
			}),
		)
}
