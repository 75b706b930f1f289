package web

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// NavBar is the top bar: brand, the pages the user's role may open, and
// sign-out. Signing out while judgments made under this sign-in are not
// yet sent asks first: they stay in the browser for the user's next
// sign-in here (the outbox is per account), which the user should know.
type NavBar struct {
	app.Compo
	Ime      api.Me
	Iactive  string
	Iproject string

	unsent int // > 0: the sign-out confirmation is open
}

// NewNavBar returns an empty navigation bar.
func NewNavBar() *NavBar { return &NavBar{} }

// Me sets the signed-in user.
func (n *NavBar) Me(v api.Me) *NavBar { n.Ime = v; return n }

// Active names the current section (a task kind, "home", "researcher",
// "setup", "dashboard", "adjudication", "review", "browse", "pools",
// "queries", "feedback" or "admin").
func (n *NavBar) Active(v string) *NavBar { n.Iactive = v; return n }

// Project sets the project the judging links point at.
func (n *NavBar) Project(v string) *NavBar { n.Iproject = v; return n }

// Render draws the bar.
func (n *NavBar) Render() app.UI {
	project := n.Iproject
	if project == "" && len(n.Ime.Projects) > 0 && !(n.Iactive == "home" && len(n.Ime.Projects) > 1) {
		project = n.Ime.Projects[0]
	}
	link := func(href, label, section string) app.UI {
		a := app.A().Href(href).Text(label)
		if section == n.Iactive {
			a = a.Class("active").Aria("current", "page")
		}
		return app.Li().Body(a)
	}
	return app.Nav().Class("navbar").Aria("label", "Main").Body(
		app.A().Class("brand").Href("/").Text("boolpool"),
		app.Ul().Body(
			app.If(len(n.Ime.Projects) > 1, func() app.UI { return link("/", "My projects", "home") }),
			app.If(project != "", func() app.UI {
				return app.Range([]int{0}).Slice(func(int) app.UI {
					return app.Div().Class("navgroup").Body(
						link("/judge/"+project, "Relevance", api.KindRelevance),
						link("/paraphrase/"+project, "Paraphrase", api.KindParaphrase),
						link("/validate/"+project, "Validate", api.KindValidation),
						link("/constraint/"+project, "Constraints", api.KindConstraint),
						link("/feedback/"+project, "Feedback", "feedback"),
					)
				})
			}),
			app.If(api.RoleAtLeast(n.Ime.Role, api.RoleResearcher), func() app.UI {
				return app.Range([]int{0}).Slice(func(int) app.UI {
					return app.Div().Class("navgroup").Body(
						link("/researcher", "Researcher", "researcher"),
						link("/setup", "Setup", "setup"),
					)
				})
			}),
			app.If(project != "" && api.RoleAtLeast(n.Ime.Role, api.RoleResearcher), func() app.UI {
				return app.Range([]int{0}).Slice(func(int) app.UI {
					return app.Div().Class("navgroup").Body(
						link("/dashboard/"+project, "Dashboard", "dashboard"),
						link("/adjudicate/"+project, "Adjudication", "adjudication"),
						link("/review/"+project, "Review", "review"),
						link("/browse/"+project, "Browse", "browse"),
						link("/pools/"+project, "Pools", "pools"),
						link("/queries/"+project, "Queries", "queries"),
					)
				})
			}),
			app.If(n.Ime.Role == api.RoleAdmin, func() app.UI {
				return link("/admin", "Admin", "admin")
			}),
		),
		app.If(n.Ime.Username != "", func() app.UI {
			return app.Div().Class("who").Body(
				app.Span().Class("username").Textf("%s (%s)", n.Ime.Username, n.Ime.Role),
				app.Button().Type("button").Class("link").ID("logout").Text("Sign out").OnClick(n.logout),
			)
		}),
		app.If(n.unsent > 0, func() app.UI {
			return app.Div().ID("logout-confirm").Class("notice", "warning").Role("alertdialog").
				Aria("labelledby", "logout-confirm-text").DataSet("unsent", n.unsent).Body(
				app.P().ID("logout-confirm-text").Textf(
					"%d judgment(s) you made as %s are not saved on the server yet. They stay in this browser and are sent "+
						"only when you sign in here again as %s, never with anyone else's sign-in.", n.unsent, n.Ime.Username, n.Ime.Username),
				app.Button().Type("button").ID("logout-confirm-yes").Text("Sign out anyway").OnClick(n.signOut),
				app.Button().Type("button").ID("logout-cancel").Class("primary").Text("Stay signed in").
					OnClick(func(ctx app.Context, e app.Event) { n.unsent = 0 }),
			)
		}),
	)
}

// logout signs out at once, or first shows how many judgments are unsent.
func (n *NavBar) logout(ctx app.Context, e app.Event) {
	ob := LoadOutbox(ctx.LocalStorage(), n.Ime.UserID)
	if unsent := ob.Pending() + len(ob.Rejected()); unsent > 0 {
		n.unsent = unsent
		return
	}
	n.signOut(ctx, e)
}

// signOut ends the session. It is first recorded in the browser (a
// pending sign-out, see SettleSignOut), so that, when the network is down
// now, the server's session still ends as soon as it is back and no page
// acts as this user meanwhile. Unsent judgments stay in the author's
// outbox. The confirmation stays on screen until the page leaves: a
// dispatch from a removed element (its button) is dropped.
func (n *NavBar) signOut(ctx app.Context, e app.Event) {
	cl := NewClient()
	marked := false
	if cl.st != nil {
		err := markSignOut(cl.st, n.Ime, time.Now())
		if err != nil {
			app.Log(err)
		}
		marked = err == nil
	}
	forgetAccount(ctx.LocalStorage())
	ctx.Async(func() {
		if marked {
			// A failure leaves the sign-out pending: the sign-in page and
			// every request try again.
			_ = cl.SettleSignOut(ctx)
		} else if _, err := cl.Me(ctx); err == nil {
			_ = cl.Logout(ctx)
		}
		ctx.Dispatch(func(ctx app.Context) { ctx.Navigate("/login") })
	})
}
