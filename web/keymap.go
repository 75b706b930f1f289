package web

import (
	"strings"

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

// gradeKeys are the relevance grades' keys in every view (judging,
// adjudication, the ? lists): key n gives grade n, the number stored and
// exported (0 definitely not relevant … 3 definitely relevant).
const gradeKeys = "0123"

// gradeKeyHelp is the grades' line in every keymap.
var gradeKeyHelp = KeyHelp{"0 1 2 3", "relevance: 0 definitely not … 3 definitely relevant"}

// gradeOf returns the grade a key gives.
func gradeOf(key string) (int, bool) {
	if len(key) != 1 {
		return 0, false
	}
	i := strings.IndexByte(gradeKeys, key[0])
	return i, i >= 0
}

// judgeKeys is the relevance judging page's keymap.
var judgeKeys = []KeyHelp{
	gradeKeyHelp,
	{"e p n", "evidence: complete / partial / none"},
	{"a s d f g h", "choose the active constraint (atom)"},
	{"j k", "next / previous sentence"},
	{"space", "mark or unmark the sentence for the active constraint (for a NOT constraint: a sentence showing the excluded property is present)"},
	{"y x u", "active constraint holds / does not hold / unsure (for a NOT constraint: the excluded property is present / absent / unsure)"},
	{"Enter", "submit and go to the next item"},
	{"Shift+S", "skip the item, with a reason"},
	{"Backspace", "go back to the item judged before (again: further back); submitting corrects it"},
	{"c", "write a comment (focuses the comment box; Esc leaves it)"},
	{"i", "show or hide the instructions"},
	{"?", "show or hide this list"},
	{"Esc", "close dialogs, leave a text field"},
}

// adjudicationKeys is the adjudication page's keymap.
var adjudicationKeys = []KeyHelp{
	gradeKeyHelp,
	{"j k", "next / previous item in the queue"},
	{"Enter", "decide"},
	{"n", "write a note (focuses the note field; Esc leaves it)"},
	{"?", "show or hide this list"},
	{"Esc", "close this list, leave the note field"},
}
