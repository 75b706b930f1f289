package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// KeyHelp is one line of a keymap.
type KeyHelp struct {
	Keys   string
	Action string
}

// KeymapDialog lists a view's keyboard shortcuts (opened with ?).
type KeymapDialog struct {
	app.Compo
	Iopen bool
	Ikeys []KeyHelp
}

// NewKeymapDialog returns a closed dialog.
func NewKeymapDialog() *KeymapDialog { return &KeymapDialog{} }

// Open shows or hides the dialog.
func (d *KeymapDialog) Open(v bool) *KeymapDialog { d.Iopen = v; return d }

// Keys sets the shortcuts to list.
func (d *KeymapDialog) Keys(v []KeyHelp) *KeymapDialog { d.Ikeys = v; return d }

// Render draws the dialog when open.
func (d *KeymapDialog) Render() app.UI {
	if !d.Iopen {
		return app.Div().Hidden(true).ID("keymap")
	}
	return app.Div().ID("keymap").Class("dialog").Role("dialog").Aria("modal", "true").Aria("labelledby", "keymap-title").Body(
		app.H2().ID("keymap-title").Text("Keyboard shortcuts"),
		app.Table().Body(app.TBody().Body(
			app.Range(d.Ikeys).Slice(func(i int) app.UI {
				return app.Tr().Body(app.Td().Body(app.Kbd().Text(d.Ikeys[i].Keys)), app.Td().Text(d.Ikeys[i].Action))
			}),
		)),
		app.P().Class("hint").Text("Press ? or Esc to close."),
	)
}
