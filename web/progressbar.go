package web

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// ProgressBar shows a rater's progress in the current task kind.
type ProgressBar struct {
	app.Compo
	Iprogress api.Progress
	Ikind     string
}

// NewProgressBar returns an empty progress bar.
func NewProgressBar() *ProgressBar { return &ProgressBar{} }

// Progress sets the counts.
func (p *ProgressBar) Progress(v api.Progress) *ProgressBar { p.Iprogress = v; return p }

// Kind sets the task kind the counts are about.
func (p *ProgressBar) Kind(v string) *ProgressBar { p.Ikind = v; return p }

// Render draws the bar with an accessible value.
func (p *ProgressBar) Render() app.UI {
	total := p.Iprogress.Total()
	done := p.Iprogress.Done + p.Iprogress.Skipped
	pct := 0
	if total > 0 {
		pct = done * 100 / total
	}
	label := fmt.Sprintf("%d of %d done", done, total)
	active := time.Duration(p.Iprogress.ActiveMs) * time.Millisecond
	perItem := ""
	if done > 0 {
		perItem = fmt.Sprintf(" · %s per item", (active / time.Duration(done)).Round(time.Second))
	}
	return app.Div().Class("progress").Body(
		app.Div().Class("progress-track").Role("progressbar").
			Aria("label", "Your progress").Aria("valuemin", 0).Aria("valuemax", total).Aria("valuenow", done).Aria("valuetext", label).
			Body(app.Div().Class("progress-fill").Style("width", "%d%%", pct)),
		app.Span().Class("progress-label").ID("progress-label").Textf("%s · active today %s%s", label, active.Round(time.Second), perItem),
	)
}
