package web

import (
	"context"
	"sort"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/web/api"
)

// AdminPage is the administrators' start page: accounts and roles, and
// export downloads (assignment policy grows here).
type AdminPage struct {
	app.Compo
	me      api.Me
	users   []api.UserView
	state   string
	message string
	mounted bool
	form    api.NewUserRequest
	client  *Client
}

// NewAdminPage returns the page.
func NewAdminPage() *AdminPage {
	return &AdminPage{state: stateLoading, form: api.NewUserRequest{Role: api.RoleAnnotator}}
}

// OnNav titles the page.
func (p *AdminPage) OnNav(ctx app.Context) { ctx.Page().SetTitle("Admin · boolpool") }

// OnMount loads the user list.
func (p *AdminPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mounted = true
	p.client = NewClient()
	p.reload(ctx)
}

func (p *AdminPage) reload(ctx app.Context) {
	cl := p.client
	ctx.Async(func() {
		c := context.Background()
		me, err := cl.Me(c)
		var users []api.UserView
		if err == nil {
			users, err = cl.Users(c)
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.me, p.users = me, users
			p.state, p.message = pageState(ctx, err, len(users) == 0)
		})
	})
}

func (p *AdminPage) create(ctx app.Context, e app.Event) {
	e.PreventDefault()
	cl, req := p.client, p.form
	ctx.Async(func() {
		_, err := cl.CreateUser(context.Background(), req)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.message = "Could not create the account: " + err.Error()
				return
			}
			p.message = "Account " + req.Username + " created."
			p.form = api.NewUserRequest{Role: api.RoleAnnotator}
			p.reload(ctx)
		})
	})
}

// Render draws the page.
func (p *AdminPage) Render() app.UI {
	root := app.Div().ID("admin").Class("page").DataSet("state", p.state)
	if p.mounted {
		root = root.DataSet("wasm", "1")
	}
	input := func(id, label, typ, value string, set func(string)) app.UI {
		return app.Div().Class("field").Body(
			app.Label().For(id).Text(label),
			app.Input().ID(id).Type(typ).Value(value).OnInput(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) }),
		)
	}
	return root.Body(
		NewNavBar().Me(p.me).Active("admin"),
		app.Main().Body(
			app.H1().Text("Accounts"),
			app.If(p.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(p.message) }),
			app.If(p.state == stateReady, func() app.UI {
				return app.Table().ID("users").Body(
					app.THead().Body(app.Tr().Body(app.Th().Text("User"), app.Th().Text("Role"), app.Th().Text("Projects"))),
					app.TBody().Body(app.Range(p.users).Slice(func(i int) app.UI {
						u := p.users[i]
						return app.Tr().Body(app.Td().Text(u.Username), app.Td().Text(u.Role), app.Td().Text(joinComma(u.Projects)))
					})),
				)
			}),
			app.Form().ID("new-user").OnSubmit(p.create).Body(
				app.H2().Text("New account"),
				input("new-username", "Username", "text", p.form.Username, func(v string) { p.form.Username = v }),
				input("new-password", "Password (8+ characters)", "password", p.form.Password, func(v string) { p.form.Password = v }),
				input("new-project", "Project (optional)", "text", p.form.Project, func(v string) { p.form.Project = v }),
				app.Div().Class("field").Body(
					app.Label().For("new-role").Text("Role"),
					app.Select().ID("new-role").OnChange(func(ctx app.Context, e app.Event) { p.form.Role = ctx.JSSrc().Get("value").String() }).Body(
						app.Option().Value(api.RoleAnnotator).Selected(p.form.Role == api.RoleAnnotator).Text("annotator"),
						app.Option().Value(api.RoleResearcher).Selected(p.form.Role == api.RoleResearcher).Text("researcher"),
						app.Option().Value(api.RoleAdmin).Selected(p.form.Role == api.RoleAdmin).Text("admin"),
					),
				),
				app.Button().Type("submit").Class("primary").Text("Create account"),
			),
			NewExportPanel().Projects(p.projects()),
		),
	)
}

// projects are the projects the admin can export: their own and every
// account's, sorted.
func (p *AdminPage) projects() []string {
	seen := map[string]bool{}
	var out []string
	add := func(xs []string) {
		for _, x := range xs {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	add(p.me.Projects)
	for _, u := range p.users {
		add(u.Projects)
	}
	sort.Strings(out)
	return out
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
