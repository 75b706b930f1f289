package web

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// CrowdPanel is the setup page's "Crowd entry" section: researchers turn a
// project's crowd link on or off, copy it, replace its key (old links stop
// working), cap the number of participants, set what makes a participant
// done (a quota of items or active minutes) with the completion code and
// URL they then get, and read the payment table (also as CSV).
type CrowdPanel struct {
	app.Compo
	Project string

	client   *Client
	loaded   string // project the settings belong to
	settings api.CrowdSettings
	maxInput string
	// The completion form's fields, as typed.
	codeInput, urlInput, itemsInput, minutesInput string
	people                                        api.CrowdParticipants
	peopleErr                                     string
	busy                                          bool
	message                                       string
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
	c.loadPeople(ctx)
}

// loadPeople reads the payment table.
func (c *CrowdPanel) loadPeople(ctx app.Context) {
	cl, project := c.client, c.Project
	ctx.Async(func() {
		ps, err := cl.CrowdParticipants(context.Background(), project)
		ctx.Dispatch(func(ctx app.Context) {
			if project != c.Project {
				return
			}
			c.peopleErr = ""
			if err != nil {
				c.peopleErr = "Could not read the participants: " + err.Error()
				return
			}
			c.people = ps
		})
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
	c.codeInput, c.urlInput = s.CompletionCode, s.CompletionURL
	c.itemsInput, c.minutesInput = strconv.Itoa(s.QuotaItems), strconv.Itoa(s.QuotaMinutes)
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
		done = "Crowd entry is on: hand the link above to your crowd platform."
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

// saveCompletion sends the completion code, URL and quota (the server
// checks them and names the field it refuses).
func (c *CrowdPanel) saveCompletion(ctx app.Context, e app.Event) {
	e.PreventDefault()
	items, err := strconv.Atoi(strings.TrimSpace(c.itemsInput))
	if err != nil || items < 0 {
		c.message = "The item quota must be a whole number, 0 for none."
		return
	}
	minutes, err := strconv.Atoi(strings.TrimSpace(c.minutesInput))
	if err != nil || minutes < 0 {
		c.message = "The minute quota must be a whole number, 0 for none."
		return
	}
	code, u := strings.TrimSpace(c.codeInput), strings.TrimSpace(c.urlInput)
	c.update(ctx, api.CrowdUpdateRequest{CompletionCode: &code, CompletionURL: &u, QuotaItems: &items, QuotaMinutes: &minutes},
		"Completion settings saved.")
}

// copyLink puts the entry link on the clipboard (selecting it when the
// browser refuses, so Ctrl+C works).
func (c *CrowdPanel) copyLink(ctx app.Context, e app.Event) {
	link := c.link()
	in := app.Window().GetElementByID("crowd-link")
	if in.Truthy() {
		in.Call("select")
	}
	nav := app.Window().Get("navigator")
	if !nav.Get("clipboard").Truthy() {
		c.message = "Copy is not available here: the link is selected, press Ctrl+C."
		return
	}
	done := app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { c.message = "Link copied." })
		return nil
	})
	failed := app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) {
			c.message = "The browser did not allow copying: the link is selected, press Ctrl+C."
		})
		return nil
	})
	nav.Get("clipboard").Call("writeText", link).Call("then", done, failed)
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
			"Participants of a crowd platform enter by a link with this project's secret key; each participant id is bound to the browser that first used it. Each participant holds at most %d items at a time, all kinds together. Turning entry off closes the link; turning it on again makes a new one. %d participant(s) so far.",
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
				app.Div().Class("copy-row").Body(
					app.Input().ID("crowd-link").ReadOnly(true).Value(c.link()).Style("width", "100%").
						OnFocus(func(ctx app.Context, e app.Event) { e.Get("target").Call("select") }),
					app.Button().ID("crowd-copy").Type("button").Text("Copy").OnClick(c.copyLink),
				),
			)
		}),
		app.Form().ID("crowd-cap-form").OnSubmit(c.saveCap).Body(
			app.Label().For("crowd-cap").Text("Most participants (0 = no cap)"),
			app.Input().ID("crowd-cap").Type("number").Min(0).Value(c.maxInput).
				OnInput(func(ctx app.Context, e app.Event) { c.maxInput = ctx.JSSrc().Get("value").String() }),
			app.Button().Type("submit").Disabled(c.busy || c.loaded == "").Text("Save cap"),
		),
		c.renderCompletion(),
		app.If(c.message != "", func() app.UI { return app.P().ID("crowd-message").Class("notice").Role("status").Text(c.message) }),
		c.renderPeople(),
	)
}

// renderCompletion is the form for what makes a participant done.
func (c *CrowdPanel) renderCompletion() app.UI {
	return app.Form().ID("crowd-completion-form").OnSubmit(c.saveCompletion).Body(
		app.H3().Text("Completion"),
		app.P().Class("hint").Text("A participant is done when they reach a quota (items judged or active minutes, whichever comes first; 0 = none) "+
			"or nothing is left for them. They then see the completion code and are sent back to the completion URL "+
			"(for Prolific: https://app.prolific.com/submissions/complete?cc=CODE)."),
		app.Label().For("crowd-code").Text("Completion code"),
		app.Input().ID("crowd-code").Type("text").MaxLength(200).Value(c.codeInput).
			OnInput(func(ctx app.Context, e app.Event) { c.codeInput = ctx.JSSrc().Get("value").String() }),
		app.Label().For("crowd-url").Text("Completion URL (http or https, optional)"),
		app.Input().ID("crowd-url").Type("url").MaxLength(2048).Value(c.urlInput).
			OnInput(func(ctx app.Context, e app.Event) { c.urlInput = ctx.JSSrc().Get("value").String() }),
		app.Label().For("crowd-quota-items").Text("Items per participant (0 = no quota)"),
		app.Input().ID("crowd-quota-items").Type("number").Min(0).Value(c.itemsInput).
			OnInput(func(ctx app.Context, e app.Event) { c.itemsInput = ctx.JSSrc().Get("value").String() }),
		app.Label().For("crowd-quota-minutes").Text("Active minutes per participant (0 = no quota)"),
		app.Input().ID("crowd-quota-minutes").Type("number").Min(0).Value(c.minutesInput).
			OnInput(func(ctx app.Context, e app.Event) { c.minutesInput = ctx.JSSrc().Get("value").String() }),
		app.Div().Class("actions").Body(
			app.Button().ID("crowd-completion-save").Type("submit").Disabled(c.busy || c.loaded == "").Text("Save completion settings"),
		),
	)
}

// renderPeople is the payment table.
func (c *CrowdPanel) renderPeople() app.UI {
	ps := c.people.Participants
	return app.Div().ID("crowd-participants").Body(
		app.H3().Text("Participants (for payment)"),
		app.P().Body(
			// A non-empty download attribute: go-app's router lets
			// the link through and the browser saves the file.
			app.A().ID("crowd-participants-csv").Class("button").Href(CrowdParticipantsCSVPath(c.Project)).
				Attr("download", c.Project+"-participants.csv").Text("Download CSV"),
			app.Text(" "),
			app.Button().ID("crowd-participants-refresh").Type("button").Text("Refresh").
				OnClick(func(ctx app.Context, e app.Event) { c.loadPeople(ctx) }),
		),
		app.If(c.peopleErr != "", func() app.UI { return app.P().Class("error").Text(c.peopleErr) }),
		app.If(len(ps) == 0 && c.peopleErr == "", func() app.UI { return app.P().Class("hint").Text("No participant has entered yet.") }),
		app.If(len(ps) > 0, func() app.UI {
			return app.Table().Body(
				app.THead().Body(app.Tr().Body(
					app.Th().Text("Participant"), app.Th().Text("Items judged"), app.Th().Text("Active minutes"),
					app.Th().Text("Gold accuracy"), app.Th().Text("Completed"), app.Th().Text("First judgment"), app.Th().Text("Last judgment"),
				)),
				app.TBody().Body(app.Range(ps).Slice(func(i int) app.UI {
					p := ps[i]
					gold := "–"
					if p.GoldAccuracy != nil {
						gold = fmt.Sprintf("%.0f%% (%d/%d)", 100**p.GoldAccuracy, p.GoldCorrect, p.GoldJudged)
					}
					done := "no"
					if p.Completed {
						done = "yes"
					}
					return app.Tr().DataSet("participant", p.Participant).Body(
						app.Td().Text(p.Participant), app.Td().Text(strconv.Itoa(p.Items)),
						app.Td().Text(strconv.FormatFloat(p.ActiveMinutes, 'f', 1, 64)), app.Td().Text(gold),
						app.Td().Class("completed").Text(done), app.Td().Text(shortTime(p.FirstJudgment)), app.Td().Text(shortTime(p.LastJudgment)),
					)
				})),
			)
		}),
	)
}

// shortTime shows a time in the browser's zone to the minute ("" if none).
func shortTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04")
}
