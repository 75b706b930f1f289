package web

import (
	"context"
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/web/api"
)

// CrowdPanel is the setup page's "Crowd entry" section: researchers turn a
// project's crowd link on or off, copy it, replace its key (old links stop
// working) and cap the number of participants.
type CrowdPanel struct {
	app.Compo
	Project string

	client   *Client
	loaded   string // project the settings belong to
	settings api.CrowdSettings
	maxInput string
	busy     bool
	message  string
}

// OnMount loads the project's settings.
func (c *CrowdPanel) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	c.client = NewClient()
	c.load(ctx)
}

// OnUpdate reloads when the panel is reused for another project.
func (c *CrowdPanel) OnUpdate(ctx app.Context) {
	if app.IsClient && c.client != nil && c.loaded != c.Project {
		c.load(ctx)
	}
}

func (c *CrowdPanel) load(ctx app.Context) {
	cl, project := c.client, c.Project
	ctx.Async(func() {
		s, err := cl.CrowdSettings(context.Background(), project)
		ctx.Dispatch(func(ctx app.Context) { c.apply(project, s, err, "") })
	})
}

// apply shows the server's answer (or its error).
func (c *CrowdPanel) apply(project string, s api.CrowdSettings, err error, done string) {
	c.busy = false
	if err != nil {
		c.message = "Could not change crowd entry: " + err.Error()
		return
	}
	c.loaded, c.settings, c.message = project, s, done
	c.maxInput = strconv.Itoa(s.MaxParticipants)
}

func (c *CrowdPanel) update(ctx app.Context, req api.CrowdUpdateRequest, done string) {
	cl, project := c.client, c.Project
	c.busy = true
	ctx.Async(func() {
		s, err := cl.UpdateCrowd(context.Background(), project, req)
		ctx.Dispatch(func(ctx app.Context) { c.apply(project, s, err, done) })
	})
}

func (c *CrowdPanel) toggle(ctx app.Context, e app.Event) {
	on := !c.settings.Enabled
	done := "Crowd entry is off: the link no longer works."
	if on {
		done = "Crowd entry is on: hand the link below to your crowd platform."
	}
	c.update(ctx, api.CrowdUpdateRequest{Enabled: &on}, done)
}

func (c *CrowdPanel) saveCap(ctx app.Context, e app.Event) {
	e.PreventDefault()
	n, err := strconv.Atoi(c.maxInput)
	if err != nil || n < 0 {
		c.message = "The participant cap must be a whole number, 0 for no cap."
		return
	}
	c.update(ctx, api.CrowdUpdateRequest{MaxParticipants: &n}, "Participant cap saved.")
}

func (c *CrowdPanel) rotate(ctx app.Context, e app.Event) {
	if !app.Window().Call("confirm", "Replace the link's key? Links handed out so far stop working at once.").Bool() {
		return
	}
	cl, project := c.client, c.Project
	c.busy = true
	ctx.Async(func() {
		s, err := cl.RotateCrowdKey(context.Background(), project)
		ctx.Dispatch(func(ctx app.Context) { c.apply(project, s, err, "New link made: the old one no longer works.") })
	})
}

// link is the full entry link with a participant placeholder.
func (c *CrowdPanel) link() string {
	if c.settings.EntryPath == "" {
		return ""
	}
	origin := ""
	if app.IsClient {
		origin = app.Window().Get("location").Get("origin").String()
	}
	return origin + c.settings.EntryPath + "&participant={{%PROLIFIC_PID%}}"
}

// Render draws the section.
func (c *CrowdPanel) Render() app.UI {
	s := c.settings
	state := "off"
	if s.Enabled {
		state = "on"
	}
	return app.Section().ID("crowd").Aria("label", "Crowd entry").DataSet("state", state).Body(
		app.H2().Text("Crowd entry"),
		app.P().Class("hint").Text(fmt.Sprintf(
			"Participants of a crowd platform enter by a link with this project's secret key; each participant id is bound to the browser that first used it. Each participant holds at most %d items at a time. %d participant(s) so far.",
			api.CrowdLeaseCap, s.Participants)),
		app.Div().Class("actions").Body(
			app.Button().ID("crowd-toggle").Disabled(c.busy || c.loaded == "").
				Text(map[bool]string{true: "Turn crowd entry off", false: "Turn crowd entry on"}[s.Enabled]).
				OnClick(c.toggle),
			app.If(s.Enabled, func() app.UI {
				return app.Button().ID("crowd-rotate").Disabled(c.busy).Text("Replace the link").OnClick(c.rotate)
			}),
		),
		app.If(s.Enabled, func() app.UI {
			return app.Div().Body(
				app.Label().For("crowd-link").Text("Entry link (replace the placeholder with your platform's participant id field)"),
				app.Input().ID("crowd-link").ReadOnly(true).Value(c.link()).Style("width", "100%").
					OnFocus(func(ctx app.Context, e app.Event) { e.Get("target").Call("select") }),
			)
		}),
		app.Form().ID("crowd-cap-form").OnSubmit(c.saveCap).Body(
			app.Label().For("crowd-cap").Text("Most participants (0 = no cap)"),
			app.Input().ID("crowd-cap").Type("number").Min(0).Value(c.maxInput).
				OnInput(func(ctx app.Context, e app.Event) { c.maxInput = ctx.JSSrc().Get("value").String() }),
			app.Button().Type("submit").Disabled(c.busy || c.loaded == "").Text("Save cap"),
		),
		app.If(c.message != "", func() app.UI { return app.P().ID("crowd-message").Class("notice").Role("status").Text(c.message) }),
	)
}
