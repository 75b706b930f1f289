package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// feedbackPageSize is how many reviews the feedback page lists.
const feedbackPageSize = 100

// FeedbackPage is the feedback an annotator received in a project
// (/feedback/:project): the researchers' reviews of their own judgments,
// newest first, each with the item, their grade, the verdict and the
// note. The server answers only the signed-in user's own reviews.
type FeedbackPage struct {
	app.Compo
	projectPage
	feedback api.Feedback
}

// NewFeedbackPage returns the page.
func NewFeedbackPage() *FeedbackPage {
	return &FeedbackPage{projectPage: projectPage{state: stateLoading}}
}

// OnNav reads the project and titles the page.
func (p *FeedbackPage) OnNav(ctx app.Context) { p.project = titleProjectPage(ctx, "Feedback") }

// OnMount loads the feedback.
func (p *FeedbackPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	cl, project := p.mountProject(ctx)
	loadWithMe(ctx, cl, func(c context.Context) (api.Feedback, error) { return cl.Feedback(c, project, feedbackPageSize, 0) },
		func(ctx app.Context, me api.Me, f api.Feedback, err error) {
			p.me, p.feedback = me, f
			p.state, p.message = pageState(ctx, err, len(f.Entries) == 0)
		})
}

// Render draws the page.
func (p *FeedbackPage) Render() app.UI {
	f := p.feedback
	return NewPage("feedback").State(p.state).ClientSide(p.mounted).Data("total", f.Total).Data("corrections", f.Corrections).
		Nav(p.me, "feedback", p.project).
		Title("Feedback received · "+p.project, app.A().Href("/judge/"+p.project).Text("Back to judging")).
		Content(
			app.If(p.state == stateError, func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(p.message) }),
			app.If(p.state == stateEmpty, func() app.UI {
				return app.P().ID("feedback-none").Class("notice").Text("No researcher has reviewed your judgments in this project yet.")
			}),
			app.If(f.Total > 0, func() app.UI {
				return app.P().ID("feedback-count").Role("status").Textf("%s, %s.", plural(f.Total, "review", "reviews"),
					plural(f.Corrections, "correction", "corrections"))
			}),
			app.Ol().ID("feedback-list").Class("review-list").Body(app.Range(f.Entries).Slice(func(i int) app.UI {
				e := f.Entries[i]
				return renderReviewEntry("", e.Judgment, renderFeedbackVerdict(e.Review))
			})),
		)
}

// renderFeedbackVerdict says what the researcher decided, with the note.
func renderFeedbackVerdict(r api.Review) app.UI {
	what := "Accepted"
	if r.Verdict == api.ReviewCorrect && r.Relevance != nil {
		what = "Corrected to " + relevanceName(*r.Relevance)
	}
	return app.Div().Class("feedback-verdict", "review-"+r.Verdict).Body(
		app.P().Body(
			app.Strong().Text(what),
			app.Textf(" by %s, %s", r.Reviewer, r.CreatedAt.Local().Format("2006-01-02 15:04")),
			app.If(!r.Current, func() app.UI { return app.Span().Class("hint").Text(" · you have judged this item again since") }),
		),
		app.If(r.Note != "", func() app.UI { return app.Blockquote().Class("review-note").Text(r.Note) }),
	)
}
