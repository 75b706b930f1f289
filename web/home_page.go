package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// HomePage sends a signed-in user to their role's start page and everyone
// else to the login page.
type HomePage struct {
	app.Compo
	message string
}

// NewHomePage returns the page.
func NewHomePage() *HomePage { return &HomePage{} }

// OnMount resolves the session.
func (p *HomePage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	ctx.Async(func() {
		me, err := NewClient().Me(context.Background())
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case StatusOf(err) == 401:
				ctx.Navigate("/login")
			case err != nil:
				p.message = "The server cannot be reached: " + err.Error()
			case homeFor(me) == "/":
				p.message = "You are signed in but belong to no project yet. Ask an administrator to add you to one."
			default:
				ctx.Navigate(homeFor(me))
			}
		})
	})
}

// Render draws a short holding page.
func (p *HomePage) Render() app.UI {
	msg := p.message
	if msg == "" {
		msg = "Loading…"
	}
	return app.Div().ID("home").Class("page").Body(
		app.Main().Body(app.H1().Text("boolpool"), app.P().Class("notice").Role("status").Text(msg)),
	)
}
