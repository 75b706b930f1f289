package web

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
	"boolpool/server/boolexpr"
)

// atomKeys select the active atom (home row; none clashes with the other
// shortcuts).
const atomKeys = "asdfgh"

// relevanceLabels are QUEST's four relevance grades, 0–3 (keys 0–3, gradeKeys).
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

// negatedSatisfiedLabels say what y / x / u mean for a NOT constraint: the
// labels are about the excluded property itself (issue 17: "holds" was
// read both ways).
var negatedSatisfiedLabels = map[string]string{
	api.SatisfiedYes:    "excluded property present",
	api.SatisfiedNo:     "excluded property absent",
	api.SatisfiedUnsure: "unsure",
}

// noGradeHint starts the message a digit above 3 shows (issue 25).
const noGradeHint = "There is no grade "

// skipReasons are offered in the skip dialog (any other can be typed).
var skipReasons = []string{
	"I cannot read the document (language, garbled text)",
	"I do not understand the query",
	"Too hard to decide",
}

// JudgePage is the relevance-and-attribution view (QUEST Appendix C,
// figure 6), driven entirely by keyboard or mouse.
type JudgePage struct {
	app.Compo
	taskFeed
	helpDialogs
	sentenceCursor

	relevance    int // -1 = not chosen
	evidence     string
	activeAtom   int
	attributions map[int]map[int]bool // atom → sentence set
	satisfied    map[int]string
	comment      string
	message      string
	shownItem    int64
	skipOpen     bool
	skipReason   string
	// prefill holds what was sent for the items brought back from the
	// history, to show them as judged.
	prefill map[int64]api.JudgmentRequest
	drafts  *Drafts // the signed-in user's drafts (nil until known)
	// feedback is the newest review of the user's judgment of each item in
	// the project (by item), shown in the history; feedbackTotal counts
	// every review they received there.
	feedback      map[int64]api.Review
	feedbackTotal int
}

// NewJudgePage returns the page.
func NewJudgePage() *JudgePage {
	return &JudgePage{relevance: -1, prefill: map[int64]api.JudgmentRequest{}}
}

// OnNav sets the page up from its URL: /judge/<project> or /item/<id>.
func (p *JudgePage) OnNav(ctx app.Context) {
	p.nav(ctx, api.KindRelevance, "Judge", p.syncForm, p.dialog)
	if p.client != nil {
		p.loadFeedback(ctx)
	}
}

// loadFeedback fetches the reviews of the user's judgments in the
// project, for the history. Without them (offline, no project) the
// history shows none.
func (p *JudgePage) loadFeedback(ctx app.Context) {
	project, cl := p.project, p.client
	if project == "" || cl == nil {
		return
	}
	ctx.Async(func() {
		f, err := cl.Feedback(context.Background(), project, api.MaxBrowsePage, 0)
		if err != nil {
			return
		}
		byItem := make(map[int64]api.Review, len(f.Entries))
		for _, e := range f.Entries { // newest first
			if _, ok := byItem[e.Review.ItemID]; !ok {
				byItem[e.Review.ItemID] = e.Review
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			if p.project == project {
				p.feedback, p.feedbackTotal = byItem, f.Total
			}
		})
	})
}

// OnMount starts the client: session, tasks, outbox and keyboard.
func (p *JudgePage) OnMount(ctx app.Context) {
	p.mount(ctx, p.onKey)
	if !app.IsClient {
		return
	}
	p.loadFeedback(ctx)
	ctx.Handle(actionHistory, func(ctx app.Context, a app.Action) {
		op, item := a.Tags.Get("op"), a.Tags.Get("item")
		ctx.Dispatch(func(ctx app.Context) {
			if op == "back" {
				p.back(ctx)
				return
			}
			if id, err := strconv.ParseInt(item, 10, 64); err == nil {
				p.openHistory(ctx, id)
			}
		})
	})
}

// OnDismount stops the sync loop and the listeners.
func (p *JudgePage) OnDismount() { p.dismount() }

// syncForm clears (or restores) the form when a new item comes on screen,
// and opens the instructions on the user's first visit.
func (p *JudgePage) syncForm(ctx app.Context) {
	p.openHelpOnFirstVisit(ctx, p.firstVisit(), p.client, p.instructionsProject(), api.KindRelevance)
	if t, ok := p.current(); ok {
		p.resetFor(t)
	}
}

// resetFor sets the form up for item t unless it is already on screen:
// from the user's judgment of t that the server refused (to be corrected
// and sent again), else from their draft of t (typed before a reload),
// else from what they sent for t (brought back from the history), else
// empty.
func (p *JudgePage) resetFor(t api.Task) {
	if p.shownItem == t.ItemID {
		return
	}
	p.shownItem = t.ItemID
	p.relevance, p.evidence, p.activeAtom, p.cursor = -1, "", 0, 0
	p.attributions = map[int]map[int]bool{}
	p.satisfied = map[int]string{}
	p.comment, p.message = "", ""
	p.skipOpen, p.skipReason = false, ""
	if e, ok := p.rejectedFor(t.ItemID); ok {
		p.fill(e.Req)
		p.message = "The server refused your judgment of this item (" + e.LastError + "). It is filled in again: correct it and submit, or discard it above."
	} else if d, ok := p.userDrafts().Get(t.ItemID); ok {
		p.fromDraft(d, len(t.Query.Atoms))
	} else if req, ok := p.prefill[t.ItemID]; ok {
		p.fill(req)
	}
	// go-app cannot clear a textarea (an empty value becomes a removed
	// attribute, which leaves what was typed): set it directly, or the
	// previous item's comment stays in the box (issue 17).
	setFieldValue("comment", p.comment)
}

func (p *JudgePage) rejectedFor(itemID int64) (OutboxEntry, bool) {
	if p.outbox == nil {
		return OutboxEntry{}, false
	}
	return p.outbox.RejectedFor(itemID, api.KindRelevance)
}

// fill sets the form from a judgment request.
func (p *JudgePage) fill(r api.JudgmentRequest) {
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
	p.skipReason = r.SkipReason
}

// draft is the form as a draft.
func (p *JudgePage) draft() Draft {
	d := Draft{Relevance: p.relevance, Evidence: p.evidence, Comment: p.comment, ActiveAtom: p.activeAtom, Cursor: p.cursor, SavedAt: time.Now()}
	for a, set := range p.attributions {
		if len(set) == 0 {
			continue
		}
		if d.Attributions == nil {
			d.Attributions = map[string][]int{}
		}
		var ss []int
		for s := range set {
			ss = append(ss, s)
		}
		sort.Ints(ss)
		d.Attributions[strconv.Itoa(a)] = ss
	}
	for a, v := range p.satisfied {
		if d.Satisfied == nil {
			d.Satisfied = map[string]string{}
		}
		d.Satisfied[strconv.Itoa(a)] = v
	}
	return d
}

// fromDraft sets the form from a draft of an item with nAtoms atoms.
func (p *JudgePage) fromDraft(d Draft, nAtoms int) {
	if d.Relevance >= 0 && d.Relevance < len(relevanceLabels) {
		p.relevance = d.Relevance
	}
	p.evidence, p.comment, p.cursor = d.Evidence, d.Comment, max(0, d.Cursor)
	if d.ActiveAtom >= 0 && d.ActiveAtom < nAtoms {
		p.activeAtom = d.ActiveAtom
	}
	for k, ss := range d.Attributions {
		if a, err := strconv.Atoi(k); err == nil && a >= 0 && a < nAtoms {
			set := map[int]bool{}
			for _, s := range ss {
				set[s] = true
			}
			p.attributions[a] = set
		}
	}
	for k, v := range d.Satisfied {
		if a, err := strconv.Atoi(k); err == nil && a >= 0 && a < nAtoms {
			p.satisfied[a] = v
		}
	}
}

// userDrafts are the signed-in user's drafts, read once per user.
func (p *JudgePage) userDrafts() *Drafts {
	if p.drafts == nil || p.drafts.User() != p.me.UserID {
		p.drafts = LoadDrafts(p.storage, p.me.UserID)
	}
	return p.drafts
}

// saveDraft keeps the form of the item on screen in browser storage, so a
// reload or a crash loses nothing typed or chosen. The write has a browser
// task of its own (persistSoon): the key press does not wait for it.
func (p *JudgePage) saveDraft() {
	if t, ok := p.current(); ok && p.shownItem == t.ItemID {
		d := p.userDrafts()
		d.Put(t.ItemID, p.draft())
		p.persistSoon("drafts", d.Flush)
	}
}

// focusField focuses a form field in the page (client only).
// commentKey focuses the judging page's comment box (29 Tabs away).
const commentKey = "c"

func focusField(id string) {
	if !app.IsClient {
		return
	}
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
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
	case "Escape":
		p.skipOpen = false
		blurTarget(ev)
	case "Backspace":
		p.back(ctx)
		return true
	}
	if p.helpKey(ctx, key, p.client, p.instructionsProject(), api.KindRelevance) {
		return true
	}
	t, ok := p.current()
	if !ok {
		return false
	}
	p.resetFor(t)
	nSent := sentenceCount(t)
	if g, ok := gradeOf(key); ok {
		p.relevance = g
		if strings.HasPrefix(p.message, noGradeHint) {
			p.message = ""
		}
		p.saveDraft()
		return true
	}
	if len(key) == 1 && key[0] >= '4' && key[0] <= '9' {
		p.message = noGradeHint + fmt.Sprintf("%s: the relevance scale is 0–3 (0 definitely not relevant, 1 likely not, 2 likely relevant, 3 definitely relevant).", key)
		return true
	}
	switch {
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
	case key == "j" || key == "k":
		p.moveCursor(ctx, key, nSent)
	case key == " ":
		p.toggleSentence(p.activeAtom, p.cursor, nSent)
	case key == "y" || key == "x" || key == "u":
		for _, o := range satisfiedOptions {
			if o.key == key && p.activeAtom < len(t.Query.Atoms) {
				p.satisfied[p.activeAtom] = o.value
			}
		}
	case key == "S":
		p.openSkip(ctx)
		return true
	case key == commentKey:
		focusField("comment") // the keydown is cancelled (handledKeys): no c typed in
		return true
	case key == "Enter":
		p.submit(ctx)
		return true
	default:
		return false
	}
	p.saveDraft()
	return true
}

// instructionsProject is the project whose instructions the page shows:
// the item's on screen, else the page's.
func (p *JudgePage) instructionsProject() string {
	if t, ok := p.current(); ok {
		return t.Project
	}
	return p.project
}

// clickSentence moves the cursor to the sentence clicked and marks or
// unmarks it for the active constraint. The task is read at event time,
// not captured (go-app keeps a row's first handler closure).
func (p *JudgePage) clickSentence(ctx app.Context, e app.Event) {
	t, ok := p.current()
	if !ok || !p.cursorToClicked(ctx, t) {
		return
	}
	p.toggleSentence(p.activeAtom, p.cursor, sentenceCount(t))
	p.saveDraft()
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
		p.message = "Choose a relevance grade first (keys 0–3)."
		return
	case p.evidence == "":
		p.message = "Choose the evidence first (e complete, p partial, n none)."
		return
	case len(strings.TrimSpace(p.comment)) > api.MaxComment:
		p.message = tooLong("comment", len(strings.TrimSpace(p.comment)), api.MaxComment)
		return
	}
	p.send(ctx, t, p.request(t))
}

// send queues a judgment of t (or its skip) and moves on; the draft of t is
// done with.
func (p *JudgePage) send(ctx app.Context, t api.Task, req api.JudgmentRequest) {
	if err := p.taskFeed.submit(ctx, req); err != nil {
		p.message = "Could not keep the judgment in this browser: " + err.Error()
		return
	}
	drafts := p.userDrafts()
	drafts.Delete(t.ItemID)
	p.persistSoon("drafts", drafts.Flush)
	delete(p.prefill, t.ItemID)
	p.message, p.skipOpen = "", false
	if next, ok := p.current(); ok {
		p.resetFor(next)
	}
}

// openSkip opens the skip dialog with the reason field focused.
func (p *JudgePage) openSkip(ctx app.Context) {
	if _, ok := p.current(); !ok {
		return
	}
	p.skipOpen = true
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID("skip-reason"); el.Truthy() {
			el.Call("focus")
		}
	})
}

// confirmSkip skips the item on screen with the reason given.
func (p *JudgePage) confirmSkip(ctx app.Context) {
	t, ok := p.current()
	if !ok {
		return
	}
	reason := strings.TrimSpace(p.skipReason)
	switch {
	case reason == "":
		p.message = "Give a reason to skip (type one or pick one)."
		return
	case len(reason) > api.MaxSkipReason:
		p.message = tooLong("skip reason", len(reason), api.MaxSkipReason)
		return
	}
	p.send(ctx, t, api.JudgmentRequest{ItemID: t.ItemID, Kind: api.KindRelevance, SkipReason: reason})
	// The reason was typed in its field (Enter): leave it, so the next keys
	// are shortcuts again.
	if el := app.Window().Get("document").Get("activeElement"); el.Truthy() {
		el.Call("blur")
	}
}

// back goes to the item judged before the one on screen: the most recent
// in the history, or, while correcting one, the one before it.
func (p *JudgePage) back(ctx app.Context) {
	idx := 0
	if p.revisiting != 0 {
		for i, h := range p.history {
			if h.Req.ItemID == p.revisiting {
				idx = i + 1
			}
		}
	}
	if idx >= len(p.history) {
		p.message = "There is no earlier item in your history to go back to."
		return
	}
	p.open(ctx, p.history[idx])
}

// openHistory brings back the item of a history entry.
func (p *JudgePage) openHistory(ctx app.Context, itemID int64) {
	for _, h := range p.history {
		if h.Req.ItemID == itemID {
			p.open(ctx, h)
			return
		}
	}
}

// open fetches an item judged before (the server lets a rater open and
// judge again any item assigned to them, whatever became of the lease) and
// puts it on screen with what was sent for it.
func (p *JudgePage) open(ctx app.Context, h HistoryEntry) {
	if p.client == nil {
		return
	}
	id, cl := h.Req.ItemID, p.client
	p.prefill[id] = h.Req
	ctx.Async(func() {
		t, err := cl.Item(context.Background(), id)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.message = fmt.Sprintf("Item %d could not be opened again: %v", id, err)
				return
			}
			p.shownItem = 0
			p.revisit(ctx, t)
			// The item is on screen: the keys are the page's again, not the
			// history button's that opened it.
			if a := app.Window().Get("document").Get("activeElement"); closest(a, "#history").Truthy() {
				a.Call("blur")
			}
		})
	})
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
		app.Main().Body(
			p.body(p.renderTask),
			// Paused or nothing left: the recent items as a card under the
			// notice, inside the page's main area (they were unstyled below it).
			app.If(p.state != stateReady && len(p.history) > 0, func() app.UI {
				return NewHistoryPanel().Entries(p.history).Revisiting(p.revisiting).Feedback(p.feedback, p.feedbackTotal, p.project).Standalone(true)
			}),
		),
		NewKeymapDialog().Open(p.showKeys).Keys(judgeKeys),
		NewInstructionsPanel().Open(p.showHelp).Kind(api.KindRelevance).Instructions(p.instructions),
	)
}

func (p *JudgePage) renderTask(t api.Task) app.UI {
	contra := p.contradiction(t)
	return app.Div().Class("task").Body(
		app.Section().Class("query-panel").Aria("label", "Query").Body(
			app.P().ID("item-id").Class("item-id").Body(
				app.Textf("Item %d", t.ItemID),
				app.If(p.revisiting == t.ItemID, func() app.UI {
					return app.Strong().Class("revisit").Text(" · judged before: submitting replaces your earlier judgment")
				}),
			),
			app.H2().Text("Query"),
			app.P().ID("query").Class("query").Body(queryText(t.Query)...),
			app.Ol().Class("atoms").Aria("label", "Constraints").Body(
				app.Range(t.Query.Atoms).Slice(func(i int) app.UI { return p.renderAtom(t, i) }),
			),
			NewHistoryPanel().Entries(p.history).Revisiting(p.revisiting).Feedback(p.feedback, p.feedbackTotal, p.project),
		),
		documentPanel(t, "Sentences; j and k move, space marks", p.cursor,
			func(i int) bool { return p.attributions[p.activeAtom][i] }, func(i int) []app.UI { return p.atomDots(t, i) }, p.clickSentence),
		app.Section().Class("labels-panel").Aria("label", "Your judgment").Body(
			app.FieldSet().Class("relevance").Body(
				app.Legend().Text("Relevance (0–3)"),
				app.Range(relevanceLabels).Slice(func(i int) app.UI {
					return choice("relevance", string(gradeKeys[i]), relevanceLabels[i], p.relevance == i, func(ctx app.Context, e app.Event) { p.relevance = i; p.saveDraft() })
				}),
			),
			app.FieldSet().Class("evidence").Body(
				app.Legend().Text("Evidence (e / p / n)"),
				app.Range(evidenceOptions).Slice(func(i int) app.UI {
					o := evidenceOptions[i]
					return choice("evidence", o.key, o.label, p.evidence == o.value, func(ctx app.Context, e app.Event) { p.evidence = o.value; p.saveDraft() })
				}),
			),
			app.If(contra, func() app.UI {
				return app.P().ID("contradiction").Class("warning").Role("alert").
					Text("Your relevance grade contradicts your constraint labels under the query's logic. Check both before submitting.")
			}),
			app.Label().For("comment").Body(app.Text("Comment (optional; key "), app.Kbd().Text(commentKey), app.Text(")")),
			app.Textarea().ID("comment").Rows(2).MaxLength(api.MaxComment).Aria("describedby", "comment-count").Text(p.comment).
				OnInput(func(ctx app.Context, e app.Event) {
					p.comment = ctx.JSSrc().Get("value").String()
					p.saveDraft()
				}),
			NewTextCounter().ID("comment-count").Bytes(len(p.comment)).Limit(api.MaxComment),
			app.If(p.message != "", func() app.UI { return app.P().ID("form-message").Class("error").Role("alert").Text(p.message) }),
			app.If(p.skipOpen, p.renderSkip),
			app.Div().Class("actions").Body(
				app.Button().Type("button").ID("submit").Class("primary").Text("Submit and next (Enter)").
					OnClick(func(ctx app.Context, e app.Event) { p.submit(ctx) }),
				app.Button().Type("button").ID("skip").Text("Skip item (Shift+S)").
					OnClick(func(ctx app.Context, e app.Event) { p.openSkip(ctx) }),
				app.Button().Type("button").ID("show-keys").Class("link").Text("Keyboard shortcuts (?)").
					OnClick(func(ctx app.Context, e app.Event) { p.showKeys = !p.showKeys }),
				app.Button().Type("button").ID("show-help").Class("link").Text("Instructions (i)").
					OnClick(func(ctx app.Context, e app.Event) {
						p.toggleHelp(ctx, p.client, p.instructionsProject(), api.KindRelevance)
					}),
			),
		),
	)
}

// renderSkip is the skip dialog: a reason (typed, or one of skipReasons),
// Enter skips, Esc cancels.
func (p *JudgePage) renderSkip() app.UI {
	return app.Form().ID("skip-dialog").Class("skip-dialog").Aria("label", "Skip this item").
		OnSubmit(func(ctx app.Context, e app.Event) { e.PreventDefault(); p.confirmSkip(ctx) }).Body(
		app.Label().For("skip-reason").Text("Why skip this item? (Enter skips, Esc cancels; you can go back to it with Backspace)"),
		app.Input().ID("skip-reason").Type("text").MaxLength(api.MaxSkipReason).Value(p.skipReason).
			OnInput(func(ctx app.Context, e app.Event) { p.skipReason = ctx.JSSrc().Get("value").String() }),
		app.Div().Class("skip-reasons").Body(
			app.Range(skipReasons).Slice(func(i int) app.UI {
				return app.Button().Type("button").Class("chip").DataSet("reason", i).Text(skipReasons[i]).
					OnClick(func(ctx app.Context, e app.Event) {
						// Read at event time: go-app keeps a row's first closure.
						if k, err := strconv.Atoi(eventData(ctx, "reason")); err == nil && k >= 0 && k < len(skipReasons) {
							p.skipReason = skipReasons[k]
							setFieldValue("skip-reason", p.skipReason)
							// Back to the reason: Enter skips, Esc cancels.
							focusField("skip-reason")
						}
					})
			}),
		),
		app.Div().Class("actions").Body(
			app.Button().Type("submit").ID("skip-confirm").Class("primary").Disabled(strings.TrimSpace(p.skipReason) == "").Text("Skip"),
			app.Button().Type("button").ID("skip-cancel").Text("Cancel (Esc)").
				OnClick(func(ctx app.Context, e app.Event) { p.skipOpen = false }),
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
	hint, hints, question := "supporting sentence", "supporting sentences", "Does the constraint hold for the document?"
	if a.Negated {
		hint, hints, question = "sentence showing the excluded property", "sentences showing the excluded property", "Is the excluded property present in the document?"
	}
	return app.Li().Class(cls...).DataSet("atom", i).Aria("current", i == p.activeAtom).Body(
		app.Button().Type("button").Class("atom-pick").Aria("pressed", i == p.activeAtom).
			Aria("label", fmt.Sprintf("Constraint %d: %s%s", i+1, notPrefix(a.Negated), a.Text)).
			OnClick(func(ctx app.Context, e app.Event) { p.activeAtom = i; p.saveDraft() }).Body(
			app.Kbd().Text(key),
			app.If(a.Negated, func() app.UI { return app.Span().Class("not-badge").Text("NOT") }),
			app.Span().Class("atom-text").Text(a.Text),
		),
		app.Span().Class("atom-count").Text(plural(len(p.attributions[i]), hint, hints)),
		app.If(a.Negated, func() app.UI {
			return app.Span().Class("not-explained").Text("Relevant documents must NOT have this property.")
		}),
		app.Span().Class("satisfied").Role("group").Aria("label", question).Body(
			app.Range(satisfiedOptions).Slice(func(k int) app.UI {
				o := satisfiedOptions[k]
				label := o.label
				if a.Negated {
					label = negatedSatisfiedLabels[o.value]
				}
				return app.Button().Type("button").Class("chip").Aria("pressed", p.satisfied[i] == o.value).
					DataSet("satisfied", o.value).Text(o.key + " " + label).
					OnClick(func(ctx app.Context, e app.Event) { p.activeAtom = i; p.satisfied[i] = o.value; p.saveDraft() })
			}),
		),
	)
}

// atomDots are the dots before sentence i: one per atom it is marked as
// evidence of.
func (p *JudgePage) atomDots(t api.Task, i int) []app.UI {
	var marks []app.UI
	for a := range t.Query.Atoms {
		if p.attributions[a][i] {
			marks = append(marks, app.Span().Class("dot", fmt.Sprintf("atom-%d", a%6)).
				Title("%s%s", notPrefix(t.Query.Atoms[a].Negated), t.Query.Atoms[a].Text).Text(string(atomKeys[a%len(atomKeys)])))
		}
	}
	return marks
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
		// One cue for a negation: the NOT badge only where the text does
		// not say it already ("… but not birds of Colombia" read "not NOT
		// birds of Colombia", struck through).
		badge := neg && !negationWritten(q.Text[:s.start])
		out = append(out, m.Body(
			app.If(badge, func() app.UI { return app.Span().Class("not-badge").Text("NOT") }),
			app.Text(q.Text[s.start:s.end]),
		))
		pos = s.end
	}
	if pos < len(q.Text) {
		out = append(out, app.Text(q.Text[pos:]))
	}
	return out
}

// negationWords end the text before a negated atom that already says so.
var negationWords = []string{"not", "without", "except", "excluding", "but no", "no"}

// negationWritten reports whether the text before an atom ends with a
// negation word.
func negationWritten(before string) bool {
	b := strings.ToLower(strings.TrimRight(before, " \t\n"))
	for _, w := range negationWords {
		if b == w || strings.HasSuffix(b, " "+w) || strings.HasSuffix(b, "("+w) {
			return true
		}
	}
	return false
}

// choice is one option of a labelled radio-like button group.
func choice(group, key, label string, selected bool, onClick app.EventHandler) app.UI {
	return app.Button().Type("button").Class("choice").Role("radio").Aria("checked", selected).
		DataSet(group, key).OnClick(onClick).Body(
		app.Kbd().Text(key),
		app.Span().Text(label),
	)
}

// dialog names the dialog open on the page (the keymap on top).
func (p *JudgePage) dialog() string {
	switch {
	case p.showKeys:
		return dialogKeymap
	case p.showHelp:
		return dialogInstructions
	case p.skipOpen:
		return dialogSkip
	}
	return dialogNone
}
