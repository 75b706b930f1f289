package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// helpDialogs is the keymap and the instructions of a judging page (each
// embeds one): ? shows or hides the keymap, i the instructions (fetched
// the first time they open), Esc closes both. The page renders them with
// KeymapDialog and InstructionsPanel.
type helpDialogs struct {
	showKeys     bool
	showHelp     bool
	instructions api.Instructions
}

// helpKey acts on ?, i and Esc for the instructions of kind in project;
// it reports whether key was one of them.
func (h *helpDialogs) helpKey(ctx app.Context, key string, cl *Client, project, kind string) bool {
	switch key {
	case "?":
		h.showKeys = !h.showKeys
	case "Escape":
		h.showKeys, h.showHelp = false, false
	case "i":
		h.toggleHelp(ctx, cl, project, kind)
	default:
		return false
	}
	return true
}

// toggleHelp shows or hides the instructions of kind in project, fetching
// them the first time.
func (h *helpDialogs) toggleHelp(ctx app.Context, cl *Client, project, kind string) {
	h.showHelp = !h.showHelp
	loadInstructions(ctx, cl, project, kind, &h.instructions, h.showHelp)
}

// openHelpOnFirstVisit opens the instructions by themselves on the user's
// first visit of a task type (then i shows them).
func (h *helpDialogs) openHelpOnFirstVisit(ctx app.Context, firstVisit bool, cl *Client, project, kind string) {
	if firstVisit && !h.showHelp {
		h.toggleHelp(ctx, cl, project, kind)
	}
}

// dialog names the dialog open (the keymap on top), for taskFeed.openDialog.
func (h *helpDialogs) dialog() string { return keysOrHelp(h.showKeys, h.showHelp) }

// loadInstructions fetches the instructions of a task type into dst when
// they are to be shown and not loaded yet.
func loadInstructions(ctx app.Context, cl *Client, project, kind string, dst *api.Instructions, open bool) {
	if !open || dst.Text != "" || cl == nil {
		return
	}
	ctx.Async(func() {
		in, err := cl.Instructions(ctx, project, kind)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				in.Text = "The instructions could not be loaded: " + err.Error()
			}
			*dst = in
		})
	})
}

// blurTarget takes the focus from the element a key event went to (Esc
// leaving a field or a button).
func blurTarget(ev app.Value) {
	if t := ev.Get("target"); t.Truthy() && t.Get("blur").Truthy() {
		t.Call("blur")
	}
}
