package web

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// AdminPage is the administrators' start page: accounts (create; change
// role, disabled flag and project memberships), and export downloads
// (assignment policy grows here).
type AdminPage struct {
	app.Compo
	me      api.Me
	users   []api.UserView
	state   string
	message string // outcome of an account row's change (below the table)
	formMsg string // outcome of "Create account" (in the form)
	mounted bool
	form    api.NewUserRequest
	edits   map[int64]*userEdit // per account: the row's unsaved values
	client  *Client
}

// userEdit is one account row's form.
type userEdit struct {
	role     string
	disabled bool
	projects string // comma-separated
}

// storedEdit is the row of u as it is saved.
func storedEdit(u api.UserView) *userEdit {
	return &userEdit{role: u.Role, disabled: u.Disabled, projects: strings.Join(u.Projects, ", ")}
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
	// Reloads run in the page's context: an event's element (a Save
	// button) can be replaced by the re-render its own change causes, and
	// a dispatch from an unmounted element is dropped.
	ctx.Handle(actionAdminReload, func(ctx app.Context, a app.Action) {
		ctx.Dispatch(func(ctx app.Context) { p.reload(ctx) })
	})
	p.reload(ctx)
}

// actionAdminReload asks the admin page to load the accounts again.
const actionAdminReload = "admin/reload"

func (p *AdminPage) reload(ctx app.Context) {
	loadWithMe(ctx, p.client, p.client.Users, func(ctx app.Context, me api.Me, users []api.UserView, err error) {
		p.me, p.users = me, users
		p.edits = map[int64]*userEdit{}
		for _, u := range users {
			p.edits[u.ID] = storedEdit(u)
		}
		msg := p.message
		p.state, p.message = pageState(ctx, err, len(users) == 0)
		if StatusOf(err) == 403 {
			p.message = "This page is for admins only: your role cannot manage accounts or download exports."
		}
		if p.message == "" {
			p.message = msg // keep the outcome of the change that caused the reload
		}
	})
}

func (p *AdminPage) create(ctx app.Context, e app.Event) {
	e.PreventDefault()
	cl, req := p.client, p.form
	ctx.Async(func() {
		_, err := cl.CreateUser(context.Background(), req)
		ctx.Dispatch(func(ctx app.Context) {
			defer revealNotice(ctx, "new-user-message")
			if err != nil {
				p.formMsg = "Could not create the account: " + userMessage(err)
				return
			}
			p.formMsg = "Account " + req.Username + " created."
			p.form = api.NewUserRequest{Role: api.RoleAnnotator}
			ctx.NewAction(actionAdminReload)
		})
	})
}

// save applies one account row's role, disabled flag and projects.
func (p *AdminPage) save(ctx app.Context, id int64) {
	ed, u := p.edits[id], p.user(id)
	if ed == nil || u.ID == 0 {
		return
	}
	role, disabled := ed.role, ed.disabled
	projects := []string{}
	for _, x := range strings.Split(ed.projects, ",") {
		if x = strings.TrimSpace(x); x != "" {
			projects = append(projects, x)
		}
	}
	cl := p.client
	ctx.Async(func() {
		_, err := cl.UpdateUser(context.Background(), id, api.UserUpdateRequest{Role: &role, Disabled: &disabled, Projects: &projects})
		ctx.Dispatch(func(ctx app.Context) {
			defer revealNotice(ctx, "admin-message")
			if err != nil {
				p.message = "Could not change " + u.Username + ": " + userMessage(err)
				// Back to the stored values: the row must show what is
				// saved, not the refused choice.
				p.edits[id] = storedEdit(u)
				resetRow(u)
				return
			}
			p.message = "Account " + u.Username + " updated."
			ctx.NewAction(actionAdminReload)
		})
	})
}

// resetRow puts an account row's controls back to the stored values. The
// DOM is set directly: after the admin changed a control its rendered
// attributes did not change, so a re-render alone would not touch it.
func resetRow(u api.UserView) {
	if el := app.Window().GetElementByID("role-" + u.Username); el.Truthy() {
		el.Set("value", u.Role)
	}
	if el := app.Window().GetElementByID("disabled-" + u.Username); el.Truthy() {
		el.Set("checked", u.Disabled)
	}
	if el := app.Window().GetElementByID("projects-" + u.Username); el.Truthy() {
		el.Set("value", strings.Join(u.Projects, ", "))
	}
}

func (p *AdminPage) user(id int64) api.UserView {
	for _, u := range p.users {
		if u.ID == id {
			return u
		}
	}
	return api.UserView{}
}

// rowEdit is the form of the account whose row holds the event's element
// (data-uid). The row is looked up at event time: go-app keeps the first
// handler closure of a row position across re-renders, so a closure must
// not capture the row's account.
func (p *AdminPage) rowEdit(ctx app.Context) (int64, *userEdit) {
	id, _ := strconv.ParseInt(eventData(ctx, "uid"), 10, 64)
	return id, p.edits[id]
}

// renderUser draws one account row with its editable role, disabled flag
// and project memberships.
func (p *AdminPage) renderUser(u api.UserView) app.UI {
	ed := p.edits[u.ID]
	if ed == nil {
		ed = storedEdit(u)
	}
	uid := strconv.FormatInt(u.ID, 10)
	return app.Tr().DataSet("user", u.Username).DataSet("role", u.Role).DataSet("disabled", u.Disabled).Body(
		app.Td().Text(u.Username),
		app.Td().Body(app.Select().ID("role-"+u.Username).DataSet("uid", uid).Aria("label", "Role of "+u.Username).
			OnChange(func(ctx app.Context, e app.Event) {
				if _, ed := p.rowEdit(ctx); ed != nil {
					ed.role = ctx.JSSrc().Get("value").String()
				}
			}).Body(
			app.Option().Value(api.RoleAnnotator).Selected(ed.role == api.RoleAnnotator).Text("annotator"),
			app.Option().Value(api.RoleResearcher).Selected(ed.role == api.RoleResearcher).Text("researcher"),
			app.Option().Value(api.RoleAdmin).Selected(ed.role == api.RoleAdmin).Text("admin"),
		)),
		app.Td().Body(app.Input().Type("checkbox").ID("disabled-"+u.Username).DataSet("uid", uid).Aria("label", "Disable "+u.Username).Checked(ed.disabled).
			OnChange(func(ctx app.Context, e app.Event) {
				if _, ed := p.rowEdit(ctx); ed != nil {
					ed.disabled = ctx.JSSrc().Get("checked").Bool()
				}
			})),
		app.Td().Body(app.Input().Type("text").ID("projects-"+u.Username).DataSet("uid", uid).Aria("label", "Projects of "+u.Username).Value(ed.projects).
			OnInput(func(ctx app.Context, e app.Event) {
				if _, ed := p.rowEdit(ctx); ed != nil {
					ed.projects = ctx.JSSrc().Get("value").String()
				}
			})),
		app.Td().Body(app.Button().Type("button").ID("save-"+u.Username).DataSet("uid", uid).Text("Save").
			OnClick(func(ctx app.Context, e app.Event) {
				if id, _ := p.rowEdit(ctx); id != 0 {
					p.save(ctx, id)
				}
			})),
	)
}

// Render draws the page.
func (p *AdminPage) Render() app.UI {
	page := NewPage("admin").State(p.state).ClientSide(p.mounted).Nav(p.me, "admin", "").Title("Accounts")
	input := func(id, label, typ, value string, set func(string)) app.UI {
		return app.Div().Class("field").Body(
			app.Label().For(id).Text(label),
			app.Input().ID(id).Type(typ).Value(value).OnInput(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) }),
		)
	}
	if (p.state != stateReady && p.state != stateEmpty) || p.me.Role != api.RoleAdmin {
		// Loading, refused (not an admin) or failed: no forms to offer.
		if p.state == stateLoading {
			return page // the frame says "Loading…"
		}
		msg := p.message
		if p.state != stateError || msg == "" {
			msg = "This page is for admins only."
		}
		return page.Content(app.P().ID("admin-message").Class("notice").Role("status").Text(msg))
	}
	return page.Content(
		app.Table().ID("users").Body(
			app.Caption().Text("Change a role, disable an account or edit its projects (comma-separated), then Save. The last enabled admin cannot be demoted or disabled."),
			app.THead().Body(app.Tr().Body(app.Th().Text("User"), app.Th().Text("Role"), app.Th().Text("Disabled"),
				app.Th().Text("Projects"), app.Th().Text("Save"))),
			app.TBody().Body(app.Range(p.users).Slice(func(i int) app.UI { return p.renderUser(p.users[i]) })),
		),
		liveNotice("admin-message", p.message),
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
			liveNotice("new-user-message", p.formMsg),
		),
		NewExportPanel().Projects(p.projects()),
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
