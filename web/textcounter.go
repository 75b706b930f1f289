package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// TextCounter shows how much of a text field's byte limit is used (the
// server counts UTF-8 bytes; the field's maxlength counts UTF-16 units, so
// the page checks bytes as well before queuing).
type TextCounter struct {
	app.Compo
	Iid    string
	Ibytes int
	Ilimit int
}

// NewTextCounter returns a counter.
func NewTextCounter() *TextCounter { return &TextCounter{} }

// ID sets the element id (for aria-describedby).
func (c *TextCounter) ID(v string) *TextCounter { c.Iid = v; return c }

// Bytes sets the text's length in bytes.
func (c *TextCounter) Bytes(v int) *TextCounter { c.Ibytes = v; return c }

// Limit sets the limit in bytes.
func (c *TextCounter) Limit(v int) *TextCounter { c.Ilimit = v; return c }

// Render draws "n / limit bytes", marked when over.
func (c *TextCounter) Render() app.UI {
	cls := []string{"counter"}
	if c.Ibytes > c.Ilimit {
		cls = append(cls, "over")
	}
	return app.Span().ID(c.Iid).Class(cls...).DataSet("bytes", c.Ibytes).
		Textf("%d / %d bytes", c.Ibytes, c.Ilimit)
}
