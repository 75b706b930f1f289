package web

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// ItemDetailPanel shows one item as the item browser opens it: the query,
// the document with the raters' marked sentences, the consensus, every
// current judgment (each with its reviews and a ReviewForm), the earlier
// judgments they replaced, the adjudications, and a link to decide the
// item on the adjudication page.
type ItemDetailPanel struct {
	app.Compo
	Iitem    api.ItemDetail
	Iproject string
	Ime      int64
}

// NewItemDetailPanel returns the panel of an item.
func NewItemDetailPanel(d api.ItemDetail, project string, me int64) *ItemDetailPanel {
	return &ItemDetailPanel{Iitem: d, Iproject: project, Ime: me}
}

// Render draws the panel.
func (p *ItemDetailPanel) Render() app.UI {
	it := p.Iitem
	atoms := it.Query.Atoms
	reviews := map[int64][]api.Review{}
	for _, r := range it.Reviews {
		reviews[r.JudgmentID] = append(reviews[r.JudgmentID], r)
	}
	consensus := "no consensus yet (no relevance vote)"
	if it.Judged {
		consensus = fmt.Sprintf("%s, %s (%d of %d votes relevant)", it.Consensus.Status, relevanceName(it.Consensus.Relevance),
			it.Consensus.RelevantVotes, it.Consensus.Votes)
	}
	return app.Section().ID("item-detail").Class("item-detail").DataSet("item", it.ItemID).Aria("label", fmt.Sprintf("Item %d", it.ItemID)).Body(
		app.H2().Body(
			app.Textf("Item %d", it.ItemID),
			app.Small().Class("hint").Textf(" · %s item · query %s%s", it.Kind, it.QueryExtID, map[bool]string{true: " · gold", false: ""}[it.IsGold]),
		),
		app.P().Class("query").Body(queryText(it.Query)...),
		app.If(it.Document != nil, func() app.UI {
			d := it.Document
			return app.Details().Class("document").Body(
				app.Summary().Textf("Document %s — %s", d.ExtID, d.Title), markedSentences(d, it.Judgments, atoms))
		}),
		app.P().ID("item-consensus").Body(
			app.Strong().Text("Consensus: "), app.Text(consensus),
			app.If(it.Kind == api.KindRelevance, func() app.UI {
				return app.A().Class("item-adjudicate").Href(fmt.Sprintf("/adjudicate/%s?item=%d", p.Iproject, it.ItemID)).Text(" · decide on the adjudication page")
			}),
		),
		app.H3().Textf("Current judgments (%d)", len(it.Judgments)),
		app.If(len(it.Judgments) == 0, func() app.UI { return app.P().Class("hint").Text("Nobody has judged this item.") }),
		app.Ul().ID("item-judgments").Class("item-judgments").Body(app.Range(it.Judgments).Slice(func(i int) app.UI {
			j := it.Judgments[i]
			return app.Li().Class("item-judgment").DataSet("judgment", j.ID).DataSet("rater", j.Rater).Body(
				app.P().Body(
					app.Strong().Text(j.Rater), app.Text(": "), app.Span().Class("item-grade").Text(relevanceName(j.Relevance)),
					app.If(j.Evidence != "", func() app.UI { return app.Text(" · evidence " + j.Evidence) }),
					app.If(j.Contradiction, func() app.UI { return app.Text(" · contradicts its constraint labels") }),
					app.Span().Class("hint").Textf(" · judgment %d, %s", j.ID, j.CreatedAt.Local().Format("2006-01-02 15:04")),
				),
				app.If(j.Comment != "", func() app.UI { return app.P().Class("review-comment").Text("Comment: " + j.Comment) }),
				renderReviews(reviews[j.ID]),
				app.If(j.RaterID != p.Ime, func() app.UI { return NewReviewForm(j.ID, j.Rater, j.Relevance) }),
			)
		})),
		app.If(len(it.Superseded) > 0, func() app.UI {
			return app.Div().Body(
				app.H3().Text("Earlier judgments, replaced by their rater"),
				app.Ul().ID("item-superseded").Body(app.Range(it.Superseded).Slice(func(i int) app.UI {
					j := it.Superseded[i]
					return app.Li().Body(
						app.Textf("%s: %s (judgment %d, %s)", j.Rater, relevanceName(j.Relevance), j.ID, j.CreatedAt.Local().Format("2006-01-02 15:04")),
						renderReviews(reviews[j.ID]),
					)
				})),
			)
		}),
		app.If(len(it.Adjudications) > 0, func() app.UI {
			return app.Div().Body(
				app.H3().Text("Decisions"),
				app.Ul().ID("item-adjudications").Body(app.Range(it.Adjudications).Slice(func(i int) app.UI {
					a := it.Adjudications[i]
					return app.Li().Textf("%s: %s — %s", a.Adjudicator, relevanceName(a.Relevance), a.Note)
				})),
			)
		}),
	)
}

// renderReviews lists the reviews of one judgment, oldest first.
func renderReviews(rs []api.Review) app.UI {
	if len(rs) == 0 {
		return app.Text("")
	}
	return app.Ul().Class("reviews").Body(app.Range(rs).Slice(func(i int) app.UI {
		r := rs[i]
		what := "accepted"
		if r.Verdict == api.ReviewCorrect && r.Relevance != nil {
			what = "corrected to " + relevanceName(*r.Relevance)
		}
		return app.Li().Class("review", "review-"+r.Verdict).Body(
			app.Textf("%s by %s, %s", what, r.Reviewer, r.CreatedAt.Local().Format("2006-01-02 15:04")),
			app.If(r.Note != "", func() app.UI { return app.Q().Class("review-note").Text(r.Note) }),
		)
	}))
}
