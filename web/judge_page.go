package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/server/boolexpr"
	"boolpool/web/api"
)

// atomKeys select the active atom (home row; none clashes with the other
// shortcuts).
const atomKeys = "asdfgh"

// relevanceLabels are QUEST's four relevance grades, 0–3, keys 1–4.
var relevanceLabels = []string{"Definitely not relevant", "Likely not relevant", "Likely relevant", "Definitely relevant"}

var evidenceOptions = []struct{ key, value, label string }{
	{"e", api.EvidenceComplete, "Complete"},
	{"p", api.EvidencePartial, "Partial"},
	{"n", api.EvidenceNone, "None"},
}

var satisfiedOptions = []struct{ key, value, label string }{
	{"y", api.SatisfiedYes, "holds"},
	{"x", api.SatisfiedNo, "does not hold"},
	{"u", api.SatisfiedUnsure, "unsure"},
}

var judgeKeys = []KeyHelp{
	{"1 2 3 4", "relevance: definitely not … definitely relevant"},
	{"e p n", "evidence: complete / partial / none"},
	{"a s d f g h", "choose the active constraint (atom)"},
	{"j k", "next / previous sentence"},
	{"space", "mark or unmark the sentence for the active constraint (counter-evidence for a NOT constraint)"},
	{"y x u", "active constraint holds / does not hold / unsure"},
	{"Enter", "submit and go to the next item"},
	{"i", "show or hide the instructions"},
	{"?", "show or hide this list"},
	{"Esc", "close dialogs, leave a text field"},
}

// JudgePage is the relevance-and-attribution view (QUEST Appendix C,
// figure 6), driven entirely by keyboard or mouse.
type JudgePage struct {
	app.Compo
	taskFeed

	relevance    int // -1 = not chosen
	evidence     string
	activeAtom   int
	cursor       int
	attributions map[int]map[int]bool // atom → sentence set
	satisfied    map[int]string
	comment      string
	message      string
	showKeys     bool
	showHelp     bool
	instructions api.Instructions
	shownItem    int64
}

// NewJudgePage returns the page.
func NewJudgePage() *JudgePage { return &JudgePage{relevance: -1} }

// OnNav sets the page up from its URL: /judge/<project> or /item/<id>.
func (p *JudgePage) OnNav(ctx app.Context) {
	p.onChange = p.syncForm
	p.nav(ctx, api.KindRelevance)
	ctx.Page().SetTitle("Judge · boolpool")
}

// OnMount starts the client: session, tasks, outbox and keyboard.
func (p *JudgePage) OnMount(ctx app.Context) {
	p.mount(ctx, p.onKey)
}

// OnDismount stops the sync loop and the listeners.
func (p *JudgePage) OnDismount() { p.dismount() }

// syncForm clears the form when a new item comes on screen.
func (p *JudgePage) syncForm() {
	if t, ok := p.current(); ok {
		p.resetFor(t)
	}
}

// resetFor clears the form for item t unless it is already on screen, or
// fills it from the user's judgment of t that the server refused, to be
// corrected and sent again.
func (p *JudgePage) resetFor(t api.Task) {
	if p.shownItem == t.ItemID {
		return
	}
	p.shownItem = t.ItemID
	p.relevance, p.evidence, p.activeAtom, p.cursor = -1, "", 0, 0
	p.attributions = map[int]map[int]bool{}
	p.satisfied = map[int]string{}
	p.comment, p.message = "", ""
	if p.outbox != nil {
		if e, ok := p.outbox.RejectedFor(t.ItemID, api.KindRelevance); ok {
			p.restore(e)
		}
	}
	// go-app cannot clear a textarea (an empty value becomes a removed
	// attribute, which leaves what was typed): set it directly, or the
	// previous item's comment stays in the box (issue 17).
	setFieldValue("comment", p.comment)
}

// restore fills the form from a refused judgment.
func (p *JudgePage) restore(e OutboxEntry) {
	r := e.Req
	if r.Relevance != nil {
		p.relevance = *r.Relevance
	}
	p.evidence = r.Evidence
	for _, a := range r.Attributions {
		set := map[int]bool{}
		for _, s := range a.Sentences {
			set[s] = true
		}
		p.attributions[a.Atom] = set
		if a.Satisfied != "" {
			p.satisfied[a.Atom] = a.Satisfied
		}
	}
	p.comment = r.Comment
	if r.SkipReason != "" {
		p.comment = r.SkipReason
	}
	p.message = "The server refused your judgment of this item (" + e.LastError + "). It is filled in again: correct it and submit, or discard it above."
}

// setFieldValue sets a form field's value in the page (client only).
func setFieldValue(id, v string) {
	if !app.IsClient {
		return
	}
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Set("value", v)
	}
}

func (p *JudgePage) onKey(ctx app.Context, key string, ev app.Value) bool {
	switch key {
	case "?":
		p.showKeys = !p.showKeys
		return true
	case "Escape":
		p.showKeys, p.showHelp = false, false
		if ev.Get("target").Truthy() {
			ev.Get("target").Call("blur")
		}
		return true
	case "i":
		p.toggleHelp(ctx)
		return true
	}
	t, ok := p.current()
	if !ok {
		return false
	}
	p.resetFor(t)
	nSent := 0
	if t.Document != nil {
		nSent = len(t.Document.Sentences)
	}
	switch {
	case len(key) == 1 && key >= "1" && key <= "4":
		p.relevance = int(key[0] - '1')
	case key == "e" || key == "p" || key == "n":
		for _, o := range evidenceOptions {
			if o.key == key {
				p.evidence = o.value
			}
		}
	case len(key) == 1 && strings.Contains(atomKeys, key):
		if i := strings.Index(atomKeys, key); i < len(t.Query.Atoms) {
			p.activeAtom = i
		}
	case key == "j":
		if p.cursor < nSent-1 {
			p.cursor++
		}
		p.scrollToCursor(ctx)
	case key == "k":
		if p.cursor > 0 {
			p.cursor--
		}
		p.scrollToCursor(ctx)
	case key == " ":
		p.toggleSentence(p.activeAtom, p.cursor, nSent)
	case key == "y" || key == "x" || key == "u":
		for _, o := range satisfiedOptions {
			if o.key == key && p.activeAtom < len(t.Query.Atoms) {
				p.satisfied[p.activeAtom] = o.value
			}
		}
	case key == "Enter":
		p.submit(ctx)
	default:
		return false
	}
	return true
}

func (p *JudgePage) toggleHelp(ctx app.Context) {
	p.showHelp = !p.showHelp
	if !p.showHelp || p.instructions.Text != "" || p.client == nil {
		return
	}
	project := p.project
	if t, ok := p.current(); ok {
		project = t.Project
	}
	cl := p.client
	ctx.Async(func() {
		in, err := cl.Instructions(ctx, project, api.KindRelevance)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				in.Text = "The instructions could not be loaded: " + err.Error()
			}
			p.instructions = in
		})
	})
}

func (p *JudgePage) scrollToCursor(ctx app.Context) {
	id := fmt.Sprintf("s-%d", p.cursor)
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "nearest"})
		}
	})
}

// clickSentence moves the cursor to the sentence clicked (data-sentence)
// and marks or unmarks it for the active constraint. The sentence and the
// task are read at event time, not captured: go-app keeps a row position's
// first handler closure across re-renders, so a captured document would be
// an earlier task's.
func (p *JudgePage) clickSentence(ctx app.Context, e app.Event) {
	t, ok := p.current()
	if !ok || t.Document == nil {
		return
	}
	i, err := strconv.Atoi(eventData(ctx, "sentence"))
	if err != nil || i < 0 || i >= len(t.Document.Sentences) {
		return
	}
	p.cursor = i
	p.toggleSentence(p.activeAtom, i, len(t.Document.Sentences))
}

func (p *JudgePage) toggleSentence(atom, sentence, nSent int) {
	if sentence < 0 || sentence >= nSent {
		return
	}
	set := p.attributions[atom]
	if set == nil {
		set = map[int]bool{}
		p.attributions[atom] = set
	}
	if set[sentence] {
		delete(set, sentence)
	} else {
		set[sentence] = true
	}
}

// request builds the judgment from the form.
func (p *JudgePage) request(t api.Task) api.JudgmentRequest {
	rel := p.relevance
	req := api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindRelevance, Relevance: &rel, Evidence: p.evidence, Comment: strings.TrimSpace(p.comment)}
	for i := range t.Query.Atoms {
		sents := make([]int, 0, len(p.attributions[i]))
		for s := range p.attributions[i] {
			sents = append(sents, s)
		}
		sort.Ints(sents)
		if len(sents) == 0 && p.satisfied[i] == "" {
			continue
		}
		req.Attributions = append(req.Attributions, api.Attribution{Atom: i, Sentences: sents, Satisfied: p.satisfied[i]})
	}
	return req
}

func (p *JudgePage) submit(ctx app.Context) {
	t, ok := p.current()
	if !ok {
		return
	}
	p.resetFor(t)
	switch {
	case p.relevance < 0:
		p.message = "Choose a relevance grade first (keys 1–4)."
		return
	case p.evidence == "":
		p.message = "Choose the evidence first (e complete, p partial, n none)."
		return
	case len(strings.TrimSpace(p.comment)) > api.MaxComment:
		p.message = tooLong("comment", len(strings.TrimSpace(p.comment)), api.MaxComment)
		return
	}
	if err := p.taskFeed.submit(ctx, p.request(t)); err != nil {
		p.message = "Could not keep the judgment in this browser: " + err.Error()
		return
	}
	p.message = ""
	if next, ok := p.current(); ok {
		p.resetFor(next)
	}
}

func (p *JudgePage) skip(ctx app.Context, e app.Event) {
	t, ok := p.current()
	if !ok {
		return
	}
	reason := strings.TrimSpace(p.comment)
	if reason == "" {
		reason = "skipped without a reason"
	}
	if len(reason) > api.MaxSkipReason {
		p.message = tooLong("skip reason (the comment)", len(reason), api.MaxSkipReason)
		return
	}
	if err := p.taskFeed.submit(ctx, api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindRelevance, SkipReason: reason}); err != nil {
		p.message = err.Error()
		return
	}
	if next, ok := p.current(); ok {
		p.resetFor(next)
	}
}

// tooLong says a text field is over the server's limit, before queuing.
func tooLong(what string, n, limit int) string {
	return fmt.Sprintf("The %s is %d bytes long; the limit is %d bytes (accented letters and emoji take 2–4 bytes each). Shorten it to submit.", what, n, limit)
}

// contradiction reports whether the chosen relevance contradicts the
// per-atom labels under the query's expression (the server computes the
// same flag when it stores the judgment).
func (p *JudgePage) contradiction(t api.Task) bool {
	if t.Query.Expression == nil || p.relevance < 0 {
		return false
	}
	truths := make([]boolexpr.Truth, len(t.Query.Atoms))
	for i := range truths {
		truths[i], _ = boolexpr.TruthFromLabel(p.satisfied[i])
	}
	return t.Query.Expression.Contradicts(p.relevance >= 2, truths)
}

// Render draws the page.
func (p *JudgePage) Render() app.UI {
	return p.root(app.Div().ID("judge").Class("page", "judge")).Body(
		p.header("Relevance"),
		app.Main().Body(p.body(p.renderTask)),
		NewKeymapDialog().Open(p.showKeys).Keys(judgeKeys),
		NewInstructionsPanel().Open(p.showHelp).Instructions(p.instructions),
	)
}

func (p *JudgePage) renderTask(t api.Task) app.UI {
	contra := p.contradiction(t)
	return app.Div().Class("task").Body(
		app.Section().Class("query-panel").Aria("label", "Query").Body(
			app.H2().Text("Query"),
			app.P().ID("query").Class("query").Body(queryText(t.Query)...),
			app.Ol().Class("atoms").Aria("label", "Constraints").Body(
				app.Range(t.Query.Atoms).Slice(func(i int) app.UI { return p.renderAtom(t, i) }),
			),
		),
		app.Section().Class("doc-panel").Aria("label", "Document").Body(
			app.If(t.Document != nil, func() app.UI { return p.renderDocument(t) }).
				Else(func() app.UI { return app.P().Class("notice").Text("This item has no document.") }),
		),
		app.Section().Class("labels-panel").Aria("label", "Your judgment").Body(
			app.FieldSet().Class("relevance").Body(
				app.Legend().Text("Relevance (1–4)"),
				app.Range(relevanceLabels).Slice(func(i int) app.UI {
					return choice("relevance", strconv.Itoa(i+1), relevanceLabels[i], p.relevance == i, func(ctx app.Context, e app.Event) { p.relevance = i })
				}),
			),
			app.FieldSet().Class("evidence").Body(
				app.Legend().Text("Evidence (e / p / n)"),
				app.Range(evidenceOptions).Slice(func(i int) app.UI {
					o := evidenceOptions[i]
					return choice("evidence", o.key, o.label, p.evidence == o.value, func(ctx app.Context, e app.Event) { p.evidence = o.value })
				}),
			),
			app.If(contra, func() app.UI {
				return app.P().ID("contradiction").Class("warning").Role("alert").
					Text("Your relevance grade contradicts your constraint labels under the query's logic. Check both before submitting.")
			}),
			app.Label().For("comment").Text("Comment (optional; also the skip reason)"),
			app.Textarea().ID("comment").Rows(2).MaxLength(api.MaxComment).Aria("describedby", "comment-count").Text(p.comment).
				OnInput(func(ctx app.Context, e app.Event) {
					p.comment = ctx.JSSrc().Get("value").String()
				}),
			NewTextCounter().ID("comment-count").Bytes(len(p.comment)).Limit(api.MaxComment),
			app.If(p.message != "", func() app.UI { return app.P().ID("form-message").Class("error").Role("alert").Text(p.message) }),
			app.Div().Class("actions").Body(
				app.Button().Type("button").ID("submit").Class("primary").Text("Submit and next (Enter)").
					OnClick(func(ctx app.Context, e app.Event) { p.submit(ctx) }),
				app.Button().Type("button").ID("skip").Text("Skip item").OnClick(p.skip),
				app.Button().Type("button").ID("show-keys").Class("link").Text("Keyboard shortcuts (?)").
					OnClick(func(ctx app.Context, e app.Event) { p.showKeys = !p.showKeys }),
				app.Button().Type("button").ID("show-help").Class("link").Text("Instructions (i)").
					OnClick(func(ctx app.Context, e app.Event) { p.toggleHelp(ctx) }),
			),
		),
	)
}

func (p *JudgePage) renderAtom(t api.Task, i int) app.UI {
	a := t.Query.Atoms[i]
	key := ""
	if i < len(atomKeys) {
		key = string(atomKeys[i])
	}
	cls := []string{"atom-row", fmt.Sprintf("atom-%d", i%6)}
	if i == p.activeAtom {
		cls = append(cls, "active")
	}
	if a.Negated {
		cls = append(cls, "negated")
	}
	hint := "supporting sentences"
	if a.Negated {
		hint = "counter-evidence sentences"
	}
	return app.Li().Class(cls...).DataSet("atom", i).Aria("current", i == p.activeAtom).Body(
		app.Button().Type("button").Class("atom-pick").Aria("pressed", i == p.activeAtom).
			Aria("label", fmt.Sprintf("Constraint %d: %s%s", i+1, notPrefix(a.Negated), a.Text)).
			OnClick(func(ctx app.Context, e app.Event) { p.activeAtom = i }).Body(
			app.Kbd().Text(key),
			app.If(a.Negated, func() app.UI { return app.Span().Class("not-badge").Text("NOT") }),
			app.Span().Class("atom-text").Text(a.Text),
		),
		app.Span().Class("atom-count").Textf("%d %s", len(p.attributions[i]), hint),
		app.Span().Class("satisfied").Role("group").Aria("label", "Does the constraint hold for the document?").Body(
			app.Range(satisfiedOptions).Slice(func(k int) app.UI {
				o := satisfiedOptions[k]
				return app.Button().Type("button").Class("chip").Aria("pressed", p.satisfied[i] == o.value).
					DataSet("satisfied", o.value).Text(o.key + " " + o.label).
					OnClick(func(ctx app.Context, e app.Event) { p.activeAtom = i; p.satisfied[i] = o.value })
			}),
		),
	)
}

func (p *JudgePage) renderDocument(t api.Task) app.UI {
	d := t.Document
	return app.Div().Body(
		app.H2().ID("doc-title").Text(d.Title),
		app.Ol().ID("sentences").Class("sentences").Aria("label", "Sentences; j and k move, space marks").Body(
			app.Range(d.Sentences).Slice(func(i int) app.UI {
				var marks []app.UI
				for a := range t.Query.Atoms {
					if p.attributions[a][i] {
						marks = append(marks, app.Span().Class("dot", fmt.Sprintf("atom-%d", a%6)).
							Title("%s%s", notPrefix(t.Query.Atoms[a].Negated), t.Query.Atoms[a].Text).Text(string(atomKeys[a%len(atomKeys)])))
					}
				}
				cls := []string{"sentence"}
				if i == p.cursor {
					cls = append(cls, "cursor")
				}
				if p.attributions[p.activeAtom][i] {
					cls = append(cls, "marked")
				}
				return app.Li().ID("s-%d", i).Class(cls...).DataSet("sentence", i).
					Aria("selected", p.attributions[p.activeAtom][i]).
					OnClick(p.clickSentence).Body(
					app.Span().Class("marks").Body(marks...),
					app.Span().Class("sentence-text").Text(d.Sentences[i]),
				)
			}),
		),
	)
}

func notPrefix(neg bool) string {
	if neg {
		return "NOT "
	}
	return ""
}

// queryText renders the query with each atom highlighted in its colour and
// negated atoms marked.
func queryText(q api.QueryView) []app.UI {
	type span struct{ start, end, atom int }
	var spans []span
	for _, a := range q.Atoms {
		if a.Start >= 0 && a.End <= len(q.Text) && a.Start < a.End {
			spans = append(spans, span{a.Start, a.End, a.Index})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var out []app.UI
	pos := 0
	for _, s := range spans {
		if s.start < pos {
			continue // overlapping spans: keep the first
		}
		if s.start > pos {
			out = append(out, app.Text(q.Text[pos:s.start]))
		}
		neg := q.Atoms[s.atom].Negated
		cls := []string{"atom", fmt.Sprintf("atom-%d", s.atom%6)}
		if neg {
			cls = append(cls, "negated")
		}
		m := app.Mark().Class(cls...).DataSet("atom", s.atom).Title("constraint %d%s", s.atom+1, map[bool]string{true: " (negated)", false: ""}[neg])
		out = append(out, m.Body(
			app.If(neg, func() app.UI { return app.Span().Class("not-badge").Text("NOT") }),
			app.Text(q.Text[s.start:s.end]),
		))
		pos = s.end
	}
	if pos < len(q.Text) {
		out = append(out, app.Text(q.Text[pos:]))
	}
	return out
}

// choice is one option of a labelled radio-like button group.
func choice(group, key, label string, selected bool, onClick app.EventHandler) app.UI {
	return app.Button().Type("button").Class("choice").Role("radio").Aria("checked", selected).
		DataSet(group, key).OnClick(onClick).Body(
		app.Kbd().Text(key),
		app.Span().Text(label),
	)
}
