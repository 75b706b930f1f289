package web

import (
	"context"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// HomePage sends a signed-in user to their role's start page and everyone
// else to the login page. An annotator in several projects stays here: it
// lists their projects with their progress in each task kind, each a link
// to its judging page (issue 25).
type HomePage struct {
	app.Compo
	message  string
	me       api.Me
	projects []api.MyProject
	loaded   bool
}

// NewHomePage returns the page.
func NewHomePage() *HomePage { return &HomePage{} }

// OnMount resolves the session.
func (p *HomePage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	ctx.Page().SetTitle("boolpool")
	cl := NewClient()
	ctx.Async(func() {
		me, err := cl.Me(context.Background())
		var mine api.MyProjects
		if err == nil && homeFor(me) == "/" && len(me.Projects) > 0 {
			mine, err = cl.MyProjects(context.Background())
		}
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case StatusOf(err) == 401:
				ctx.Navigate("/login")
			case err != nil:
				p.message = "The server cannot be reached: " + err.Error()
			case homeFor(me) != "/":
				ctx.Navigate(homeFor(me))
			case len(me.Projects) == 0:
				p.me = me
				p.message = "You are signed in but belong to no project yet. Ask an administrator to add you to one."
			default:
				p.me, p.projects, p.loaded = me, mine.Projects, true
			}
		})
	})
}

// kindPages are the judging pages by task kind, with their names.
var kindPages = map[string]struct{ path, name, verb string }{
	api.KindRelevance:  {"/judge/", "Relevance", "judged"},
	api.KindConstraint: {"/constraint/", "Constraints", "answered"},
	api.KindParaphrase: {"/paraphrase/", "Paraphrase", "written"},
	api.KindValidation: {"/validate/", "Validate", "validated"},
}

// Render draws the project list, or a short holding page.
func (p *HomePage) Render() app.UI {
	msg := p.message
	if msg == "" {
		msg = "Loading…"
	}
	return app.Div().ID("home").Class("page").DataSet("loaded", p.loaded).Body(
		app.If(p.me.Username != "", func() app.UI { return NewNavBar().Me(p.me).Active("home") }),
		app.Main().Body(
			app.If(!p.loaded, func() app.UI {
				return app.Div().Body(app.H1().Text("boolpool"), app.P().Class("notice").Role("status").Text(msg))
			}).Else(func() app.UI {
				return app.Div().Body(
					app.H1().Class("page-title").Text("Your projects"),
					app.Ul().ID("home-projects").Class("home-projects").Body(
						app.Range(p.projects).Slice(func(i int) app.UI { return renderMyProject(p.projects[i]) }),
					),
				)
			}),
		),
	)
}

// renderMyProject is one project of the list: its name (a link to its
// first task kind's page) and the user's progress in each kind.
func renderMyProject(mp api.MyProject) app.UI {
	title := mp.Title
	if title == "" || title == mp.Name {
		title = mp.Name
	} else {
		title = fmt.Sprintf("%s (%s)", mp.Title, mp.Name)
	}
	first := "/judge/" + mp.Name
	if len(mp.Kinds) > 0 {
		first = kindPages[mp.Kinds[0].Kind].path + mp.Name
	}
	return app.Li().Class("home-project").DataSet("project", mp.Name).Body(
		app.H2().Body(app.A().Href(first).Text(title)),
		app.If(len(mp.Kinds) == 0, func() app.UI {
			return app.P().Class("hint").Text("Nothing to judge in this project yet.")
		}),
		app.Ul().Class("home-kinds").Body(
			app.Range(mp.Kinds).Slice(func(k int) app.UI {
				kp := mp.Kinds[k]
				page := kindPages[kp.Kind]
				done, total := kp.Progress.Done, kp.Progress.Total()
				pct := 0
				if total > 0 {
					pct = (done + kp.Progress.Skipped) * 100 / total
				}
				return app.Li().Class("home-kind").DataSet("kind", kp.Kind).DataSet("done", done).DataSet("total", total).Body(
					app.A().Href(page.path+mp.Name).Text(page.name),
					app.Text(" "),
					app.Span().Class("home-count").Text(progressText(kp.Progress, page.verb)),
					app.Div().Class("progress-track").Role("progressbar").Aria("label", page.name+" progress in "+mp.Name).
						Aria("valuemin", 0).Aria("valuemax", total).Aria("valuenow", done+kp.Progress.Skipped).
						Body(app.Div().Class("progress-fill").Style("width", "%d%%", pct)),
				)
			}),
		),
	)
}

// progressText says "3 of 6 judged", with the skipped and the items
// left ("· 1 skipped · 2 left", "· all done").
func progressText(p api.Progress, verb string) string {
	s := fmt.Sprintf("%d of %d %s", p.Done, p.Total(), verb)
	if p.Skipped > 0 {
		s += fmt.Sprintf(" · %d skipped", p.Skipped)
	}
	left := p.Available + p.Leased
	switch {
	case p.Total() == 0:
		s += " · nothing for you here yet"
	case left == 0:
		s += " · all done"
	default:
		s += fmt.Sprintf(" · %d left", left)
	}
	return s
}
