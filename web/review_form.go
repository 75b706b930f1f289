package web

import (
	"context"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// actionReviewed tells the page that a review was recorded (tags judgment,
// verdict): the review queue and the item view reload.
const actionReviewed = "review/done"

// ReviewForm reviews one annotator's judgment: Accept, or Correct… opens
// a grade and a note (required: the annotator reads it on their history)
// and Send correction records both. A correction is stored as its own
// review and counts as the item's adjudication; the judgment is kept.
type ReviewForm struct {
	app.Compo
	Ijudgment  int64
	Igrade     int
	Iannotator string

	// The typed state belongs to one judgment: go-app reuses a list
	// position's component for whatever judgment comes to sit there.
	forJudgment int64
	correcting  bool
	relevance   int
	note        string
	busy        bool
	message     string
}

// NewReviewForm returns the form of a judgment by annotator with grade.
func NewReviewForm(judgment int64, annotator string, grade int) *ReviewForm {
	return &ReviewForm{Ijudgment: judgment, Iannotator: annotator, Igrade: grade}
}

// sync drops typed state that belonged to another judgment.
func (f *ReviewForm) sync() {
	if f.forJudgment != f.Ijudgment {
		f.forJudgment, f.correcting, f.relevance, f.note, f.busy, f.message = f.Ijudgment, false, -1, "", false, ""
	}
}

// Render draws the form.
func (f *ReviewForm) Render() app.UI {
	f.sync()
	id := strconv.FormatInt(f.Ijudgment, 10)
	return app.Div().Class("review-form").DataSet("judgment", f.Ijudgment).Body(
		app.Div().Class("actions").Body(
			app.Button().Type("button").ID("accept-"+id).Class("review-accept").Disabled(f.busy).
				Aria("label", "Accept "+f.Iannotator+"'s judgment "+id).Text("Accept").OnClick(f.accept),
			app.Button().Type("button").ID("correct-open-"+id).Class("review-correct-open").Disabled(f.busy).
				Aria("expanded", f.correcting).Text("Correct…").
				OnClick(func(ctx app.Context, e app.Event) {
					f.sync()
					f.correcting = !f.correcting
					if f.correcting {
						ctx.Defer(func(app.Context) { focusField("correct-grade-" + id) })
					}
				}),
		),
		app.If(f.correcting, func() app.UI {
			return app.Form().ID("correct-"+id).Class("review-correct-form").Aria("label", "Correct judgment "+id).
				OnSubmit(func(ctx app.Context, e app.Event) { e.PreventDefault(); f.correct(ctx) }).Body(
				app.Label().For("correct-grade-"+id).Text("Corrected grade"),
				app.Select().ID("correct-grade-"+id).OnChange(func(ctx app.Context, e app.Event) {
					f.relevance = -1
					if n, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil {
						f.relevance = n
					}
				}).Body(
					app.Option().Value("").Selected(f.relevance < 0).Text("choose…"),
					app.Range(relevanceLabels).Slice(func(i int) app.UI {
						return app.Option().Value(strconv.Itoa(i)).Disabled(i == f.Igrade).Selected(i == f.relevance).Text(relevanceName(i))
					}),
				),
				app.Label().For("correct-note-"+id).Text("Note for "+f.Iannotator+" (required)"),
				app.Textarea().ID("correct-note-"+id).Rows(2).MaxLength(api.MaxReviewNote).Text(f.note).
					OnInput(func(ctx app.Context, e app.Event) { f.note = ctx.JSSrc().Get("value").String() }),
				app.Button().Type("submit").ID("correct-send-"+id).Class("primary").Disabled(f.busy).Text("Send correction"),
			)
		}),
		app.If(f.message != "", func() app.UI {
			return app.P().Class("review-message", "error").Role("alert").Text(f.message)
		}),
	)
}

func (f *ReviewForm) accept(ctx app.Context, e app.Event) {
	f.sync()
	f.send(ctx, api.ReviewRequest{Verdict: api.ReviewAccept})
}

func (f *ReviewForm) correct(ctx app.Context) {
	f.sync()
	switch {
	case f.relevance < 0:
		f.message = "Choose the corrected grade."
	case strings.TrimSpace(f.note) == "":
		f.message = "Write a note: " + f.Iannotator + " reads it on their history."
	default:
		rel := f.relevance
		f.send(ctx, api.ReviewRequest{Verdict: api.ReviewCorrect, Relevance: &rel, Note: f.note})
	}
}

func (f *ReviewForm) send(ctx app.Context, req api.ReviewRequest) {
	if f.busy {
		return
	}
	f.busy, f.message = true, ""
	id := f.Ijudgment
	cl := NewClient()
	ctx.Async(func() {
		_, err := cl.Review(context.Background(), id, req)
		ctx.Dispatch(func(ctx app.Context) {
			if f.forJudgment != id {
				return
			}
			f.busy = false
			if err != nil {
				f.message = "Not recorded: " + userMessage(err)
				return
			}
			f.correcting, f.note, f.relevance = false, "", -1
			ctx.NewAction(actionReviewed, app.Tags{"judgment": strconv.FormatInt(id, 10), "verdict": req.Verdict})
		})
	})
}
