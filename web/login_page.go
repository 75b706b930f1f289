package web

import (
	"context"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// LoginPage signs a user in.
type LoginPage struct {
	app.Compo
	username string
	password string
	message  string
	busy     bool
	mounted  bool
	next     string
	// signingOut names the user whose sign-out in this browser waits for
	// the network to end their server session ("" if none).
	signingOut string
	stop       context.CancelFunc // ends the sign-out retries (nil: none run)
}

// signOutRetry is how often the sign-in page tries to end the session of
// a sign-out made offline.
const signOutRetry = 2 * time.Second

// NewLoginPage returns the page.
func NewLoginPage() *LoginPage { return &LoginPage{} }

// OnNav reads where to go after signing in.
func (p *LoginPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Sign in · boolpool")
	next := ctx.Page().URL().Query().Get("next")
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") {
		p.next = next
	}
}

// OnMount marks the page interactive and, if a sign-out made offline is
// still pending, ends its server session as soon as the network allows.
func (p *LoginPage) OnMount(ctx app.Context) {
	p.mounted = app.IsClient
	if !app.IsClient {
		return
	}
	cl := NewClient()
	pending, ok := signOutPending(cl.st)
	if !ok {
		return
	}
	p.signingOut = pending.Username
	if p.signingOut == "" {
		p.signingOut = "the previous user"
	}
	// The goroutine ends with the page (OnDismount) or once the server
	// confirmed the sign-out.
	p.OnDismount()
	loopCtx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	ctx.Async(func() {
		t := time.NewTicker(signOutRetry)
		defer t.Stop()
		for {
			if err := cl.SettleSignOut(loopCtx); err == nil {
				ctx.Dispatch(func(ctx app.Context) { p.signingOut = "" })
				return
			}
			select {
			case <-loopCtx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// OnDismount stops the sign-out retries.
func (p *LoginPage) OnDismount() {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

func (p *LoginPage) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if p.busy {
		return
	}
	p.busy, p.message = true, ""
	user, pass, next := p.username, p.password, p.next
	ctx.Async(func() {
		me, err := NewClient().Login(context.Background(), user, pass)
		ctx.Dispatch(func(ctx app.Context) {
			p.busy = false
			if err != nil {
				switch StatusOf(err) {
				case 401:
					p.message = "Wrong username or password."
				case 429:
					p.message = "Too many attempts. Wait a minute and try again."
				default:
					p.message = "Could not sign in: " + err.Error()
				}
				return
			}
			p.password = ""
			if next == "" {
				next = homeFor(me)
			}
			ctx.Navigate(next)
		})
	})
}

// Render draws the form.
func (p *LoginPage) Render() app.UI {
	root := app.Div().ID("login").Class("page", "login")
	if p.mounted {
		root = root.DataSet("wasm", "1")
	}
	return root.Body(
		app.Main().Class("login-box").Body(
			app.H1().Text("boolpool"),
			app.P().Class("hint").Text("Sign in to judge, research or administer."),
			app.If(p.signingOut != "", func() app.UI {
				return app.P().ID("signout-pending").Class("notice", "warning").Role("status").Textf(
					"%s is signed out in this browser. The network is down, so the server does not know yet: "+
						"it is told as soon as the connection is back (keep this page open).", p.signingOut)
			}),
			app.Form().ID("login-form").OnSubmit(p.submit).Body(
				app.Label().For("username").Text("Username"),
				app.Input().ID("username").Name("username").Type("text").AutoComplete(true).Required(true).AutoFocus(true).
					Value(p.username).OnInput(func(ctx app.Context, e app.Event) { p.username = ctx.JSSrc().Get("value").String() }),
				app.Label().For("password").Text("Password"),
				app.Input().ID("password").Name("password").Type("password").Required(true).
					Value(p.password).OnInput(func(ctx app.Context, e app.Event) { p.password = ctx.JSSrc().Get("value").String() }),
				app.If(p.message != "", func() app.UI { return app.P().ID("login-error").Class("error").Role("alert").Text(p.message) }),
				app.Button().Type("submit").ID("login-submit").Class("primary").Disabled(p.busy).Text("Sign in"),
			),
		),
	)
}
