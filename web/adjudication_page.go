package web

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// AdjudicationPage is a project's adjudication queue (/adjudicate/:project):
// items whose raters disagree or contradict their own constraint labels.
// The selected item shows the query, the document and every judgment with
// its attributions side by side; the researcher picks a relevance (the
// grade keys 0–3 of every view, gradeKeys), adds a note and decides
// (Enter). j / k move through the queue; ? lists the keys.
type AdjudicationPage struct {
	app.Compo
	projectPage
	queue     api.AdjudicationQueue
	selected  int64
	relevance int
	note      string
	busy      bool
	showKeys  bool
	release   func()
	offset    int // the queue page shown: items offset+1 … offset+limit
	limit     int
}

// queuePage is how many queue entries a page lists; "Show all" lists up
// to queueAll (the API's bound) at once.
const (
	queuePage = 50
	queueAll  = 200
)

// NewAdjudicationPage returns the page.
func NewAdjudicationPage() *AdjudicationPage {
	return &AdjudicationPage{projectPage: projectPage{state: stateLoading}, relevance: -1, limit: queuePage}
}

// OnNav reads the project and titles the page.
func (p *AdjudicationPage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Adjudication")
}

// OnMount loads the queue and takes the keyboard.
func (p *AdjudicationPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mountProject(ctx)
	if id, err := strconv.ParseInt(ctx.Page().URL().Query().Get("item"), 10, 64); err == nil {
		p.selected = id
	}
	fn := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		ev := args[0]
		if isTyping(ev) || ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool() || ev.Get("altKey").Bool() {
			return nil
		}
		key := ev.Get("key").String()
		_, grade := gradeOf(key)
		if grade || key == "j" || key == "k" || key == "?" || key == noteKey || key == "Escape" || (key == "Enter" && ev.Get("target").Get("tagName").String() != "BUTTON") {
			ev.Call("preventDefault")
			ctx.Dispatch(func(ctx app.Context) { p.onKey(ctx, key) })
		}
		return nil
	})
	app.Window().Call("addEventListener", "keydown", fn)
	p.release = func() {
		app.Window().Call("removeEventListener", "keydown", fn)
		fn.Release()
	}
	p.reload(ctx)
}

// OnDismount gives the keyboard back.
func (p *AdjudicationPage) OnDismount() {
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

func (p *AdjudicationPage) reload(ctx app.Context) {
	cl, project, limit, offset := p.client, p.project, p.limit, p.offset
	loadWithMe(ctx, cl, func(c context.Context) (api.AdjudicationQueue, error) {
		return cl.AdjudicationQueue(c, project, limit, offset)
	},
		func(ctx app.Context, me api.Me, q api.AdjudicationQueue, err error) {
			if err == nil && len(q.Items) == 0 && q.Total > 0 && p.offset > 0 {
				// The page emptied (decisions): show the last one.
				p.offset = max(0, (q.Total-1)/p.limit*p.limit)
				p.reload(ctx)
				return
			}
			p.me, p.queue = me, q
			state, msg := pageState(ctx, err, len(q.Items) == 0)
			p.state = state
			if err != nil {
				p.message = msg
			}
			if p.current() == nil && len(q.Items) > 0 {
				p.choose(q.Items[0].ItemID)
			}
		})
}

// turnPage shows another page of the queue (data-offset, data-limit of
// the button), selecting its first item.
func (p *AdjudicationPage) turnPage(ctx app.Context, e app.Event) {
	off, err1 := strconv.Atoi(eventData(ctx, "offset"))
	lim, err2 := strconv.Atoi(eventData(ctx, "limit"))
	if err1 != nil || err2 != nil || lim <= 0 {
		return
	}
	p.offset, p.limit, p.selected = max(0, off), lim, 0
	p.reload(ctx)
}

// current is the selected queue item (nil if none).
func (p *AdjudicationPage) current() *api.AdjudicationItem {
	for i := range p.queue.Items {
		if p.queue.Items[i].ItemID == p.selected {
			return &p.queue.Items[i]
		}
	}
	return nil
}

func (p *AdjudicationPage) choose(id int64) {
	if id == p.selected && p.relevance >= 0 {
		return
	}
	p.selected, p.note, p.relevance = id, "", -1
}

// chooseRow selects the queue entry that was clicked (data-item); the item
// is read at event time, not captured: go-app keeps a row position's first
// handler closure across re-renders, so after the queue reloads a captured
// item would be the one that used to sit in that row.
func (p *AdjudicationPage) chooseRow(ctx app.Context, e app.Event) {
	if id, err := strconv.ParseInt(eventData(ctx, "item"), 10, 64); err == nil {
		p.choose(id)
	}
}

// noteKey focuses the adjudication note (70 Tabs away).
const noteKey = "n"

func (p *AdjudicationPage) onKey(ctx app.Context, key string) {
	switch key {
	case "j", "k":
		idx := -1
		for i, it := range p.queue.Items {
			if it.ItemID == p.selected {
				idx = i
			}
		}
		if key == "j" && idx+1 < len(p.queue.Items) {
			p.choose(p.queue.Items[idx+1].ItemID)
		}
		if key == "k" && idx > 0 {
			p.choose(p.queue.Items[idx-1].ItemID)
		}
	case "Enter":
		p.submit(ctx)
	case "?":
		p.showKeys = !p.showKeys
	case "Escape":
		p.showKeys = false
	case noteKey:
		focusField("adjudication-note") // the keydown is cancelled: no n typed in
	default:
		if g, ok := gradeOf(key); ok {
			p.relevance = g
		}
	}
}

func (p *AdjudicationPage) decide(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.submit(ctx)
}

// submit sends the decision on the selected item.
func (p *AdjudicationPage) submit(ctx app.Context) {
	it := p.current()
	if it == nil || p.busy {
		return
	}
	if p.relevance < 0 {
		p.message = "Pick a relevance first (keys 0–3)."
		return
	}
	rel := p.relevance
	req := api.AdjudicationRequest{Relevance: &rel, Note: p.note}
	id, cl := it.ItemID, p.client
	p.busy = true
	ctx.Async(func() {
		res, err := cl.Adjudicate(context.Background(), id, req)
		ctx.Dispatch(func(ctx app.Context) {
			p.busy = false
			if err != nil {
				p.message = "Could not record the decision: " + err.Error()
				return
			}
			p.message = fmt.Sprintf("Item %d decided: %s.", id, relevanceName(res.Adjudication.Relevance))
			// Drop it at once and move on; the reload confirms the queue.
			var rest []api.AdjudicationItem
			next := int64(0)
			for i, x := range p.queue.Items {
				if x.ItemID == id {
					if i+1 < len(p.queue.Items) {
						next = p.queue.Items[i+1].ItemID
					} else if i > 0 {
						next = p.queue.Items[i-1].ItemID
					}
					continue
				}
				rest = append(rest, x)
			}
			p.queue.Items = rest
			p.queue.Total--
			p.selected, p.note, p.relevance = next, "", -1
			// The decision was typed in the note field (Enter): leave it,
			// so the next keys are shortcuts again, not note text.
			if el := app.Window().Get("document").Get("activeElement"); el.Truthy() {
				el.Call("blur")
			}
			p.reload(ctx)
		})
	})
}

// relevanceName is a grade's label ("2 likely relevant").
func relevanceName(r int) string {
	if r >= 0 && r < len(relevanceLabels) {
		return strconv.Itoa(r) + " " + strings.ToLower(relevanceLabels[r])
	}
	return strconv.Itoa(r)
}

// Render draws the page.
func (p *AdjudicationPage) Render() app.UI {
	it := p.current()
	return NewPage("adjudication").State(p.state).Data("item", p.selected).Data("total", p.queue.Total).ClientSide(p.mounted).
		Nav(p.me, "adjudication", p.project).
		Title("Adjudication · "+p.project, app.A().Href("/dashboard/"+p.project).Text("Dashboard")).
		After(NewKeymapDialog().Open(p.showKeys).Keys(adjudicationKeys)).
		Content(
			app.If(p.message != "", func() app.UI {
				return app.P().ID("adjudication-message").Class("notice").Role("status").Text(p.message)
			}),
			app.If(p.state == stateEmpty, func() app.UI {
				return app.P().ID("queue-empty").Class("notice").Text("Nothing awaits adjudication.")
			}),
			app.If(len(p.queue.Items) > 0, func() app.UI {
				return app.Div().Class("adjudication").Body(
					app.Nav().Class("queue").Aria("label", "Queue").Body(
						app.H2().Text("Queue"), p.renderPager(),
						app.Ul().Body(app.Range(p.queue.Items).Slice(func(i int) app.UI { return p.renderEntry(p.queue.Items[i]) })),
						app.P().Class("hint").Text("j / k: next / previous item · 0–3: relevance · Enter: decide · ?: all keys"),
					),
					app.If(it != nil, func() app.UI { return p.renderItem(*it) }),
				)
			}),
			app.If(p.mounted && p.project != "", func() app.UI { return NewConsistencyPanel().Project(p.project) }),
		)
}

// prevPageLabel and nextPageLabel name the items the pager's buttons show
// ("Items 51–55 of 55 →", not "Next 5", which did not say which).
func prevPageLabel(offset, limit int) string {
	from := max(0, offset-limit)
	return fmt.Sprintf("← Items %d–%d", from+1, offset)
}

func nextPageLabel(to, limit, total int) string {
	return fmt.Sprintf("Items %d–%d of %d →", to+1, min(to+limit, total), total)
}

// renderPager says which part of the queue is listed ("Items 1–50 of
// 57") and offers the previous, next and all entries.
func (p *AdjudicationPage) renderPager() app.UI {
	total, n := p.queue.Total, len(p.queue.Items)
	from, to := p.offset+1, p.offset+n
	label := fmt.Sprintf("Items %d–%d of %d", from, to, total)
	if n == total {
		label = fmt.Sprintf("All %d items", total)
	}
	pageBtn := func(id, text string, offset, limit int) app.UI {
		return app.Button().Type("button").ID(id).Class("link").DataSet("offset", offset).DataSet("limit", limit).
			OnClick(p.turnPage).Text(text)
	}
	return app.Div().ID("queue-pager").Class("pager").DataSet("shown", n).DataSet("total", total).Body(
		app.P().ID("queue-count").Role("status").Text(label),
		app.If(p.offset > 0, func() app.UI {
			return pageBtn("queue-prev", prevPageLabel(p.offset, p.limit), max(0, p.offset-p.limit), p.limit)
		}),
		app.If(to < total, func() app.UI {
			return pageBtn("queue-next", nextPageLabel(to, p.limit, total), to, p.limit)
		}),
		app.If(n < total && total <= queueAll, func() app.UI {
			return pageBtn("queue-all", fmt.Sprintf("Show all %d", total), 0, queueAll)
		}),
	)
}

func (p *AdjudicationPage) renderEntry(it api.AdjudicationItem) app.UI {
	doc := ""
	if it.Document != nil {
		doc = it.Document.ExtID
	}
	b := app.Button().Type("button").Class("queue-entry").DataSet("item", it.ItemID).DataSet("doc", doc).
		Aria("pressed", it.ItemID == p.selected).Title("query "+it.QueryExtID+", item "+strconv.FormatInt(it.ItemID, 10)).
		OnClick(p.chooseRow).
		Body(
			app.Strong().Class("entry-query").Text(shorten(it.Query.Text, 90)),
			app.Span().Class("entry-doc").Text(" · "+doc),
			app.Span().Textf(" %s · %d votes, %d relevant%s", it.Consensus.Status, it.Consensus.Votes, it.Consensus.RelevantVotes,
				map[bool]string{true: " · contradiction", false: ""}[it.Consensus.Contradictions > 0]),
		)
	return app.Li().Body(b)
}

func (p *AdjudicationPage) renderItem(it api.AdjudicationItem) app.UI {
	atoms := it.Query.Atoms
	return app.Section().ID("adjudication-item").Class("adjudication-item").Aria("label", "Item to decide").Body(
		app.H2().Body(app.Text("Query "), app.Small().Class("hint").Text(it.QueryExtID)),
		app.P().Class("query").Body(queryText(it.Query)...),
		app.If(it.Document != nil, func() app.UI {
			d := it.Document
			return app.Div().Class("document").Body(
				app.H3().Textf("%s — %s", d.ExtID, d.Title), markedSentences(d, it.Judgments, atoms))
		}),
		app.Table().ID("judgments").Class("side-by-side").Body(
			app.Caption().Textf("Consensus: %s, relevance %s (%d of %d votes relevant)", it.Consensus.Status,
				relevanceName(it.Consensus.Relevance), it.Consensus.RelevantVotes, it.Consensus.Votes),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text(""),
				app.Range(it.Judgments).Slice(func(i int) app.UI {
					return app.Th().Scope("col").Text(it.Judgments[i].Rater)
				}),
			)),
			app.TBody().Body(
				p.judgmentRow("Relevance", it.Judgments, func(j api.JudgmentView) string { return relevanceName(j.Relevance) }),
				p.judgmentRow("Evidence", it.Judgments, func(j api.JudgmentView) string { return j.Evidence }),
				app.Range(atoms).Slice(func(a int) app.UI {
					return p.judgmentRow(notPrefix(atoms[a].Negated)+atoms[a].Text, it.Judgments, func(j api.JudgmentView) string {
						return attributionText(j.Attributions, atoms[a].Index)
					})
				}),
				p.judgmentRow("Contradiction", it.Judgments, func(j api.JudgmentView) string {
					if j.Contradiction {
						return "yes — contradicts its constraint labels"
					}
					return "no"
				}),
				p.judgmentRow("Comment", it.Judgments, func(j api.JudgmentView) string { return j.Comment }),
				p.judgmentRow("Time", it.Judgments, func(j api.JudgmentView) string { return fmt.Sprintf("%.0f s", float64(j.TimeSpentMs)/1000) }),
			),
		),
		app.If(len(it.Adjudications) > 0, func() app.UI {
			return app.Ul().Class("previous").Body(app.Range(it.Adjudications).Slice(func(i int) app.UI {
				a := it.Adjudications[i]
				return app.Li().Textf("Earlier decision by %s: %s %s", a.Adjudicator, relevanceName(a.Relevance), a.Note)
			}))
		}),
		app.Form().ID("decide").OnSubmit(p.decide).Body(
			app.FieldSet().Body(
				app.Legend().Text("Decision (keys 0–3)"),
				app.Div().Class("choices").Role("radiogroup").Aria("label", "Relevance").Body(
					app.Range(relevanceLabels).Slice(func(i int) app.UI {
						return choice("relevance", strconv.Itoa(i), relevanceLabels[i], p.relevance == i, func(ctx app.Context, e app.Event) { p.relevance = i })
					}),
				),
			),
			app.Div().Class("field").Body(
				app.Label().For("adjudication-note").Body(app.Text("Note (why; key "), app.Kbd().Text(noteKey), app.Text(")")),
				app.Input().ID("adjudication-note").Type("text").Value(p.note).
					OnInput(func(ctx app.Context, e app.Event) { p.note = ctx.JSSrc().Get("value").String() }),
			),
			app.Button().Type("submit").ID("decide-submit").Class("primary").Disabled(p.busy || p.relevance < 0).Text("Decide"),
		),
	)
}

func (p *AdjudicationPage) judgmentRow(label string, js []api.JudgmentView, cell func(api.JudgmentView) string) app.UI {
	return app.Tr().Body(
		app.Th().Scope("row").Text(label),
		app.Range(js).Slice(func(i int) app.UI {
			td := app.Td().Text(cell(js[i]))
			if js[i].Contradiction {
				td = td.Class("contradiction")
			}
			return td
		}),
	)
}

// attributionText summarises one rater's label and sentences for an atom.
func attributionText(as []api.Attribution, atom int) string {
	for _, a := range as {
		if a.Atom != atom {
			continue
		}
		s := a.Satisfied
		if len(a.Sentences) > 0 {
			nums := make([]string, len(a.Sentences))
			for i, n := range a.Sentences {
				nums[i] = strconv.Itoa(n + 1)
			}
			kind := "sentences"
			if a.Counter {
				kind = "counter-evidence"
			}
			s += fmt.Sprintf(" (%s %s)", kind, strings.Join(nums, ", "))
		}
		return s
	}
	return "—"
}

// sentenceMark is one rater's attribution of a sentence to a constraint.
type sentenceMark struct {
	rater   string
	atom    int
	counter bool
}

// sentenceMarks collects, per sentence index, the raters' attributions
// (the judgments carry per-atom sentence ids).
func sentenceMarks(js []api.JudgmentView) map[int][]sentenceMark {
	out := map[int][]sentenceMark{}
	for _, j := range js {
		for _, a := range j.Attributions {
			for _, s := range a.Sentences {
				out[s] = append(out[s], sentenceMark{rater: j.Rater, atom: a.Atom, counter: a.Counter})
			}
		}
	}
	return out
}

// markedSentences is d's sentence list, each drawn by renderMarkedSentence
// with the raters' marks of js (the adjudication and item pages).
func markedSentences(d *api.DocumentView, js []api.JudgmentView, atoms []api.AtomView) app.UI {
	marks := sentenceMarks(js)
	return app.Ol().Class("sentences").Body(app.Range(d.Sentences).Slice(func(i int) app.UI {
		return renderMarkedSentence(i, d.Sentences[i], marks[i], atoms)
	}))
}

// renderMarkedSentence draws a document sentence; one that raters marked
// is highlighted and says who marked it for which constraint (the
// constraint's colour and number, "counter" for counter-evidence).
func renderMarkedSentence(i int, text string, marks []sentenceMark, atoms []api.AtomView) app.UI {
	li := app.Li().Class("sentence").Value(i + 1)
	if len(marks) == 0 {
		return li.Text(text)
	}
	return li.Class("marked").DataSet("marks", len(marks)).Body(
		app.Span().Class("marks").Body(app.Range(marks).Slice(func(k int) app.UI {
			m := marks[k]
			name := fmt.Sprintf("constraint %d", m.atom+1)
			if m.atom >= 0 && m.atom < len(atoms) {
				name += " (" + atoms[m.atom].Text + ")"
			}
			label := m.rater + ": " + name
			if m.counter {
				label += ", counter-evidence"
			}
			short := fmt.Sprintf("%s %d", m.rater, m.atom+1)
			if m.counter {
				short += "✕"
			}
			return app.Span().Class("dot", fmt.Sprintf("atom-%d", m.atom%6)).Title(label).Aria("label", label).Text(short)
		})),
		app.Text(text),
	)
}
