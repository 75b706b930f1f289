package web

import (
	"context"
	"fmt"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// reviewPageSize is how many judgments the review queue lists at once.
const reviewPageSize = 25

// ReviewPage is a project's review queue (/review/:project?annotator=NAME):
// every annotator with their judgments, how many are not reviewed yet and
// how many were accepted or corrected; choosing one lists their
// judgments not yet reviewed, oldest first, each to accept or to correct
// with a note the annotator reads on their history (ReviewForm).
type ReviewPage struct {
	app.Compo
	projectPage
	annotator string
	offset    int
	queue     api.ReviewQueue
}

// NewReviewPage returns the page.
func NewReviewPage() *ReviewPage { return &ReviewPage{projectPage: projectPage{state: stateLoading}} }

// OnNav reads the project and the annotator of the URL.
func (p *ReviewPage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Review")
	p.annotator = ctx.Page().URL().Query().Get("annotator")
}

// OnMount loads the queue and listens for recorded reviews.
func (p *ReviewPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mountProject(ctx)
	p.annotator = ctx.Page().URL().Query().Get("annotator")
	ctx.Handle(actionReviewed, func(ctx app.Context, a app.Action) {
		verdict := map[string]string{api.ReviewAccept: "accepted", api.ReviewCorrect: "corrected"}[a.Tags.Get("verdict")]
		ctx.Dispatch(func(ctx app.Context) {
			p.message = fmt.Sprintf("Judgment %s %s.", a.Tags.Get("judgment"), verdict)
			p.reload(ctx)
		})
	})
	p.reload(ctx)
}

func (p *ReviewPage) reload(ctx app.Context) {
	cl, project, annotator, offset := p.client, p.project, p.annotator, p.offset
	loadWithMe(ctx, cl, func(c context.Context) (api.ReviewQueue, error) {
		return cl.ReviewQueue(c, project, annotator, reviewPageSize, offset)
	}, func(ctx app.Context, me api.Me, q api.ReviewQueue, err error) {
		if err == nil && len(q.Entries) == 0 && q.Total > 0 && p.offset > 0 {
			p.offset = max(0, (q.Total-1)/reviewPageSize*reviewPageSize)
			p.reload(ctx)
			return
		}
		p.me, p.queue = me, q
		var msg string
		p.state, msg = pageState(ctx, err, len(q.Annotators) == 0)
		if err != nil {
			p.message = msg
		}
	})
}

// choose lists the queue of the annotator of the button (data-annotator).
func (p *ReviewPage) choose(ctx app.Context, e app.Event) {
	p.annotator, p.offset, p.message = eventData(ctx, "annotator"), 0, ""
	setURLQuery(ctx, url.Values{"annotator": {p.annotator}})
	p.reload(ctx)
}

// turnPage shows another page of the queue (data-offset).
func (p *ReviewPage) turnPage(ctx app.Context, e app.Event) {
	if off, ok := pageOffset(ctx); ok {
		p.offset = off
		p.reload(ctx)
	}
}

// Render draws the page.
func (p *ReviewPage) Render() app.UI {
	q := p.queue
	return NewPage("review").State(p.state).ClientSide(p.mounted).Data("annotator", p.annotator).Data("total", q.Total).
		Nav(p.me, "review", p.project).
		Title("Review · "+p.project, app.A().Href("/browse/"+p.project).Text("Item browser")).
		Content(
			app.If(p.message != "", func() app.UI {
				return app.P().ID("review-message").Class("notice").Role("status").Text(p.message)
			}),
			app.If(p.state == stateEmpty, func() app.UI {
				return app.P().Class("notice").Text("No annotator has judged a relevance item yet.")
			}),
			app.If(len(q.Annotators) > 0, func() app.UI {
				return app.Table().ID("review-annotators").Body(
					app.Caption().Text("Annotators: their current relevance judgments and the latest review of each"),
					app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Annotator"), app.Th().Scope("col").Text("Judged"),
						app.Th().Scope("col").Text("Not reviewed"), app.Th().Scope("col").Text("Accepted"), app.Th().Scope("col").Text("Corrected"))),
					app.TBody().Body(app.Range(q.Annotators).Slice(func(i int) app.UI {
						a := q.Annotators[i]
						return app.Tr().DataSet("annotator", a.Annotator).Body(
							app.Th().Scope("row").Body(app.Button().Type("button").Class("link", "review-annotator").
								DataSet("annotator", a.Annotator).Aria("pressed", a.Annotator == p.annotator).
								OnClick(p.choose).Text(a.Annotator)),
							app.Td().Text(a.Judged), app.Td().Class("unreviewed").Text(a.Unreviewed),
							app.Td().Text(a.Accepted), app.Td().Text(a.Corrected),
						)
					})),
				)
			}),
			app.If(p.annotator != "" && p.state == stateReady, func() app.UI { return p.renderQueue() }),
		)
}

func (p *ReviewPage) renderQueue() app.UI {
	q := p.queue
	from, to := p.offset+1, p.offset+len(q.Entries)
	return app.Section().ID("review-queue").Aria("label", "Judgments to review").Body(
		app.H2().Textf("%s: %d not reviewed", q.Annotator, q.Total),
		app.If(len(q.Entries) == 0, func() app.UI {
			return app.P().ID("review-done").Class("notice").Textf("Every current judgment of %s is reviewed.", q.Annotator)
		}),
		app.If(len(q.Entries) > 0, func() app.UI {
			return pager("", fmt.Sprintf("Judgments %d–%d of %d, oldest first", from, to, q.Total), "review",
				p.offset, to, q.Total, reviewPageSize, p.turnPage)
		}),
		app.Ol().Class("review-list").Body(app.Range(q.Entries).Slice(func(i int) app.UI {
			link := fmt.Sprintf("/browse/%s?item=%d", p.project, q.Entries[i].ItemID)
			return renderReviewEntry(link, q.Entries[i], NewReviewForm(q.Entries[i].JudgmentID, q.Entries[i].Annotator, q.Entries[i].Relevance))
		})),
	)
}

// renderReviewEntry is one judgment: the item (a link to it when link is
// set), query, document, grade, evidence and comment, then extra.
func renderReviewEntry(link string, j api.ReviewEntry, extra app.UI) app.UI {
	var item app.UI = app.Span().Class("review-item").Textf("Item %d", j.ItemID)
	if link != "" {
		item = app.A().Class("review-item").Href(link).Textf("Item %d", j.ItemID)
	}
	return app.Li().Class("review-entry").DataSet("judgment", j.JudgmentID).DataSet("item", j.ItemID).Body(
		app.P().Body(
			item,
			app.Text(" · "), app.Strong().Class("review-grade").Text(relevanceName(j.Relevance)),
			app.If(j.Evidence != "", func() app.UI { return app.Span().Text(" · evidence " + j.Evidence) }),
		),
		app.P().Class("review-what").Body(
			app.Span().Class("hint").Text(j.QueryExtID+" "), app.Text(shorten(j.QueryText, 140)),
			app.If(j.DocTitle != "" || j.DocExtID != "", func() app.UI {
				return app.Span().Class("review-doc").Text(" — " + j.DocExtID + " " + j.DocTitle)
			}),
		),
		app.If(j.Comment != "", func() app.UI { return app.P().Class("review-comment").Text("Comment: " + j.Comment) }),
		extra,
	)
}

// setURLQuery replaces the page URL's query (no navigation): a reload or
// a shared link opens the same view.
func setURLQuery(ctx app.Context, v url.Values) {
	u := *ctx.Page().URL()
	for k, vs := range v {
		if len(vs) == 0 || vs[0] == "" {
			delete(v, k)
		}
	}
	u.RawQuery = v.Encode()
	ctx.Page().ReplaceURL(&u)
}
