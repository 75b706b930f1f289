package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Page is the frame every research page renders into: the root element
// that tests and CSS find the page by (its id, class "page", data-state,
// data-wasm once the client side runs, and the page's own data-*
// attributes), the navigation bar, and the main region with the title
// line, the "Loading…" notice and then the page's content.
//
// Events of the content update the page that rendered it too: go-app
// updates every component above an event's element.
type Page struct {
	app.Compo
	Iid      string
	Istate   string
	Imounted bool
	Idata    []pageData
	Ime      api.Me
	Iactive  string
	Iproject string
	Ititle   string
	Ilinks   []app.UI
	Icontent []app.UI
	Iafter   []app.UI
}

// pageData is one data-* attribute of a page's root.
type pageData struct {
	name  string
	value any
}

// NewPage returns the frame of the page with this root id.
func NewPage(id string) *Page { return &Page{Iid: id} }

// State sets the page's load state (data-state; "loading" shows the
// notice).
func (p *Page) State(v string) *Page { p.Istate = v; return p }

// ClientSide marks the client side as running (data-wasm="1").
func (p *Page) ClientSide(v bool) *Page { p.Imounted = v; return p }

// Data adds a data-* attribute to the root.
func (p *Page) Data(name string, v any) *Page {
	p.Idata = append(p.Idata, pageData{name, v})
	return p
}

// Nav sets the navigation bar: the signed-in user, the active section and
// the project its links point at.
func (p *Page) Nav(me api.Me, active, project string) *Page {
	p.Ime, p.Iactive, p.Iproject = me, active, project
	return p
}

// Title sets the page's heading and the links beside it.
func (p *Page) Title(title string, links ...app.UI) *Page {
	p.Ititle, p.Ilinks = title, links
	return p
}

// Content sets what the page shows under its title.
func (p *Page) Content(v ...app.UI) *Page { p.Icontent = v; return p }

// After sets what comes after the main region (dialogs).
func (p *Page) After(v ...app.UI) *Page { p.Iafter = v; return p }

// Render draws the frame.
// pageForbidden reports whether a page failed because the signed-in role
// may not open it: every page Page frames is a researcher's (admin: an
// admin's) but the annotator's feedback page.
func pageForbidden(id, role, state string) bool {
	if state != stateError || role == "" {
		return false
	}
	switch id {
	case "feedback":
		return false
	case "admin":
		return role != api.RoleAdmin
	}
	return role != api.RoleResearcher && role != api.RoleAdmin
}

func (p *Page) Render() app.UI {
	root := app.Div().ID(p.Iid).Class("page").DataSet("state", p.Istate)
	for _, d := range p.Idata {
		root = root.DataSet(d.name, d.value)
	}
	if p.Imounted {
		root = root.DataSet("wasm", "1")
	}
	main := make([]app.UI, 0, len(p.Icontent)+2)
	if pageForbidden(p.Iid, p.Ime.Role, p.Istate) {
		// The page's own title and links (a project's name, "Set up a
		// project…") would sit above "your role cannot open this page".
		main = append(main, app.Div().Class("page-title").Body(app.H1().Text("Not available")))
	} else {
		main = append(main, app.Div().Class("page-title").Body(append([]app.UI{app.H1().Text(p.Ititle)}, p.Ilinks...)...))
	}
	if p.Istate == stateLoading {
		main = append(main, app.P().Class("notice").Text("Loading…"))
	}
	main = append(main, p.Icontent...)
	return root.Body(append([]app.UI{
		NewNavBar().Me(p.Ime).Active(p.Iactive).Project(p.Iproject),
		app.Main().Body(main...),
	}, p.Iafter...)...)
}
