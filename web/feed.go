package web

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Page load states, exposed as data-state on each page's root for tests and
// styling.
const (
	stateLoading = "loading"
	stateReady   = "ready"
	stateEmpty   = "empty"
	stateError   = "error"
	// stateCompleted: a crowd participant reached the project's quota
	// (api.Queue.Completed); the page shows the completion code.
	stateCompleted = "completed"
)

// taskFeed is what every judging page shares: the signed-in user, the leased
// tasks (current first), progress, and the outbox with its sync loop. It is
// not a component; pages embed it and call it from their lifecycle hooks.
type taskFeed struct {
	kind     string
	project  string
	itemID   int64 // set when the page opened one item by URL (/item/N)
	client   *Client
	outbox   *Outbox
	storage  Storage
	me       api.Me
	tasks    []api.Task
	progress api.Progress
	code     string // crowd-platform completion code, once all work is done
	doneURL  string // where a crowd participant who is done goes back to
	// completed: the participant reached the quota; returning is set once
	// the automatic return to doneURL is scheduled, stay when they chose
	// to stay on the page.
	completed bool
	returning bool
	stay      bool
	paused    string // the server's pause reason (gold accuracy check), "" = not paused
	judged    map[int64]bool
	// submitted are the items judged here this session (until the server
	// refuses one); leasedAt are the items the last queue answer still
	// counted as leased. Their overlap is judged but not yet counted done
	// by that answer: the progress bar adds it (shownProgress), so "done"
	// is exact whichever of the send and the answer came first.
	submitted map[int64]bool
	leasedAt  map[int64]bool
	// history is the user's recent items of this kind, most recent first;
	// revisiting is the item brought back from it to correct (0 if none).
	history    []HistoryEntry
	revisiting int64
	historyW   HistoryWriter
	// persist are the browser-storage writes waiting for their own
	// browser task (persistSoon), by what they write.
	persistMu sync.Mutex
	persist   map[string]func()
	seenFor   string // the account and project whose first visit was checked
	// storeProject is the project whose history and instructions-seen
	// flag this page uses: the URL's, or on /item/N the item's.
	storeProject string
	state        string
	errMsg       string
	sync         SyncState
	pending      int
	rejected     int
	refused      []OutboxEntry // the judgments the server refused, named in the header
	orphans      []OutboxEntry // judgments kept aside without an author (v1 outbox)
	lastSave     time.Time
	started      time.Time
	clock        activeClock
	wake         chan struct{}
	// showingNext holds the time (UnixNano) of a submit until its next
	// item is on screen (afterPaint; 0 after): the sync loop's
	// once-a-second flush waits for that (the submit's afterPaint wakes
	// it), so no judgment is sent before the item after it is shown — but
	// never longer than showingNextMax, in case no paint follows (a dialog
	// that submitted and closed): a judgment is never held back by it.
	showingNext atomic.Int64
	cancel      context.CancelFunc
	release     []func()
	onChange    func(ctx app.Context) // called when the current task may have changed
	// openDialog names the page's open dialog (dialogNone …): while one
	// is open only its keys act (dialogKey).
	openDialog func() string
	navved     bool
	// retryLoad is set when the first load failed for lack of network; the
	// sync loop tries again.
	retryLoad bool
	loadTries int
	// refilling is set while a refill's queue request is out; refillAgain
	// when another was asked for meanwhile (a submit and the send of its
	// judgment both reach the low-water mark): it runs once that answer
	// is in, if still below the mark, so one batch is not fetched twice.
	refilling   bool
	refillAgain bool
}

func (f *taskFeed) changed(ctx app.Context) {
	if f.onChange != nil {
		f.onChange(ctx)
	}
}

// nav sets a judging page up for its URL (OnNav): the task kind, the
// project or item the path names, the page title ("title · boolpool"), and
// the page's form reset (onChange) and open dialog (openDialog). go-app
// calls OnMount before OnNav on client-side navigation and the other way
// round on a first load, so the first load starts when both have run.
func (f *taskFeed) nav(ctx app.Context, kind, title string, onChange func(ctx app.Context), openDialog func() string) {
	f.onChange, f.openDialog = onChange, openDialog
	ctx.Page().SetTitle(title + " · boolpool")
	u := ctx.Page().URL()
	f.kind = kind
	f.project, f.itemID = lastPathPart(u.Path), 0
	if strings.HasPrefix(u.Path, "/item/") {
		f.itemID, _ = strconv.ParseInt(f.project, 10, 64)
		f.project = ""
	}
	f.state = stateLoading
	// go-app reuses the page component when the path changes (/judge/p →
	// /item/N): the previous path's tasks are not this one's.
	f.tasks = nil
	if f.judged == nil {
		f.judged = map[int64]bool{}
		f.submitted = map[int64]bool{}
	}
	f.revisiting = 0
	f.completed = false // the queue answer says again
	f.navved = true
	if f.client != nil {
		f.load(ctx)
	}
}

// mount starts the client side: the outbox, its sync loop, the online
// listener and the first load.
func (f *taskFeed) mount(ctx app.Context, onKey func(ctx app.Context, key string, ev app.Value) bool) {
	if !app.IsClient {
		return
	}
	f.client = NewClient()
	// Until /api/me answers, the outbox is the last signed-in user's (an
	// offline reload still shows it); load switches it to the session's.
	f.storage = ctx.LocalStorage()
	f.outbox = LoadOutbox(f.storage, rememberedAccount(f.storage))
	f.counts()
	f.orphans = Unattributed(f.storage)
	f.sync = SyncSaved
	if f.pending > 0 {
		f.sync = SyncPending
	}
	ctx.Handle(actionRefused, func(ctx app.Context, a app.Action) {
		op, id := a.Tags.Get("op"), a.Tags.Get("client_id")
		ctx.Dispatch(func(ctx app.Context) { f.refusedAction(ctx, op, id) })
	})
	f.wake = make(chan struct{}, 1)
	loopCtx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go f.syncLoop(loopCtx, ctx)
	if f.navved {
		defer f.load(ctx)
	}
	f.listen("online", func(app.Value) {
		f.outbox.RetryNow(time.Now())
		f.poke()
	})
	// A reload, a closed tab or another site: the pending storage writes
	// (drafts, history) are done now.
	f.listen("pagehide", func(app.Value) { f.flushPersist() })
	// Any input counts as activity for the pay-by-the-hour clock.
	for _, ev := range []string{"pointerdown", "wheel", "input"} {
		f.listen(ev, func(app.Value) { f.clock.touch(time.Now()) })
	}
	if onKey != nil {
		// A button clicked with the mouse does not keep the focus (as in
		// Safari): the keys stay the page's shortcuts after a click, and a
		// button has the focus only when the keyboard put it there, which
		// is when Enter and Space are its own (pageKey).
		f.listen("mousedown", func(ev app.Value) {
			if b := closest(ev.Get("target"), "button"); b.Truthy() {
				ev.Call("preventDefault")
				if a := app.Window().Get("document").Get("activeElement"); a.Truthy() && !a.Equal(b) && a.Get("blur").Truthy() {
					a.Call("blur")
				}
			}
		})
		f.listen("keydown", func(ev app.Value) {
			f.clock.touch(time.Now())
			if ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool() || ev.Get("altKey").Bool() {
				return
			}
			key := ev.Get("key").String()
			if !pageKey(ev, key) {
				return
			}
			// preventDefault must run synchronously in the event.
			if handledKeys[key] {
				ev.Call("preventDefault")
			}
			// Esc leaves a text field at once, not after the dispatch: a
			// shortcut typed right after it (m on the paraphrase page) is
			// then the page's, not a letter in the field.
			if key == "Escape" && isTyping(ev) {
				if t := ev.Get("target"); t.Get("blur").Truthy() {
					t.Call("blur")
				}
			}
			ctx.Dispatch(func(ctx app.Context) {
				// The page's dialog state, not the DOM: a key pressed right
				// after the one closing a dialog comes before the render.
				if f.openDialog != nil && !dialogKey(f.openDialog(), key) {
					return
				}
				onKey(ctx, key, ev)
			})
			wakeForFrame()
		})
	}
}

// keysOrHelp names the open dialog of a page whose only dialogs are the
// keymap (on top) and the instructions.
func keysOrHelp(showKeys, showHelp bool) string {
	switch {
	case showKeys:
		return dialogKeymap
	case showHelp:
		return dialogInstructions
	}
	return dialogNone
}

// handledKeys are the keys the judging views take over (so space does not
// scroll).
var handledKeys = map[string]bool{" ": true, "Enter": true, "j": true, "k": true, "?": true, "Backspace": true, "S": true, commentKey: true}

// dialogSelector finds the dialogs of a judging page: the keymap, the
// instructions, the skip dialog and the sign-out confirmation (a closed
// keymap or instructions panel has no role).
const dialogSelector = `[role="dialog"], [role="alertdialog"], #skip-dialog`

// Dialogs a judging page may have open (taskFeed.openDialog).
const (
	dialogNone         = ""
	dialogKeymap       = "keymap"
	dialogInstructions = "instructions"
	dialogSkip         = "skip"
)

// dialogKey reports whether a key acts while dialog is open: every key
// with none open, else Esc (closes every dialog) and the dialog's own
// toggle (? the keymap, i the instructions).
func dialogKey(dialog, key string) bool {
	switch {
	case dialog == dialogNone || key == "Escape":
		return true
	case dialog == dialogKeymap:
		return key == "?"
	case dialog == dialogInstructions:
		return key == "i"
	}
	return false
}

// pageKey reports whether a key pressed is the page's shortcut (issue 25):
// not when typed in a text field (but Esc, which leaves it); not Enter or
// Space on a focused button, link or other control, which are the
// control's own (except Enter on a radio-like choice or a checkbox, which
// submits as in a form); and while a dialog is open, only the dialog's own
// keys, so nothing acts behind it.
func pageKey(ev app.Value, key string) bool {
	if key == "Escape" {
		return true
	}
	if isTyping(ev) {
		return false
	}
	t := ev.Get("target")
	if key == " " || key == "Enter" {
		if c := closest(t, `button, a[href], input, select, textarea, summary, [role="button"], [role="link"], [role="radio"], [role="checkbox"], [contenteditable="true"]`); c.Truthy() {
			field := closest(c, `[role="radio"], [role="checkbox"], input[type="radio"], input[type="checkbox"]`).Truthy()
			if key == " " || !field || closest(c, dialogSelector).Truthy() {
				return false
			}
		}
	}
	// The sign-out confirmation (the navigation bar's) takes every key but
	// Esc; the page's own dialogs are checked against its state
	// (taskFeed.openDialog).
	doc := app.Window().Get("document")
	return !doc.Truthy() || !doc.Call("querySelector", `[role="alertdialog"]`).Truthy()
}

// closest is el.closest(selector), or undefined when el is not an element.
func closest(el app.Value, selector string) app.Value {
	if !el.Truthy() || el.Get("closest").Type() != app.TypeFunction {
		return app.Undefined()
	}
	return el.Call("closest", selector)
}

func (f *taskFeed) listen(event string, h func(ev app.Value)) {
	fn := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) > 0 {
			h(args[0])
		} else {
			h(nil)
		}
		return nil
	})
	app.Window().Call("addEventListener", event, fn)
	f.release = append(f.release, func() {
		app.Window().Call("removeEventListener", event, fn)
		fn.Release()
	})
}

func (f *taskFeed) dismount() {
	f.flushPersist()
	if f.cancel != nil {
		f.cancel()
	}
	for _, r := range f.release {
		r()
	}
	f.release = nil
}

// isTyping reports whether a key event comes from a text field.
func isTyping(ev app.Value) bool {
	t := ev.Get("target")
	if !t.Truthy() {
		return false
	}
	switch t.Get("tagName").String() {
	case "INPUT", "TEXTAREA", "SELECT":
		return t.Get("type").String() != "radio" && t.Get("type").String() != "checkbox"
	}
	return false
}

// load resolves the user, then leases tasks (or opens the one item).
func (f *taskFeed) load(ctx app.Context) {
	cl := f.client
	itemID, project, kind := f.itemID, f.project, f.kind
	ctx.Async(func() {
		c := context.Background()
		me, err := cl.Me(c)
		if StatusOf(err) == 401 {
			ctx.Dispatch(func(ctx app.Context) { ctx.Navigate("/login?next=" + url.QueryEscape(ctx.Page().URL().Path)) })
			return
		}
		if err != nil {
			ctx.Dispatch(func(ctx app.Context) { f.fail(err) })
			return
		}
		var tasks []api.Task
		var prog api.Progress
		var code, paused string
		var q api.Queue
		if itemID > 0 {
			var t api.Task
			t, err = cl.Item(c, itemID)
			tasks = []api.Task{t}
		} else {
			q, err = cl.Queue(c, project, kind, api.QueueAsk(f.outbox.Pending()))
			tasks, prog, code = q.Tasks, q.Progress, q.CompletionCode
			paused = q.PauseReason
		}
		ctx.Dispatch(func(ctx app.Context) {
			f.me = me
			f.storeProject = f.project
			if itemID > 0 && len(tasks) > 0 && err == nil {
				f.storeProject = tasks[0].Project
			}
			f.useAccount(me.UserID)
			if err != nil {
				f.fail(err)
				return
			}
			if f.sync == SyncOffline && f.outbox.Pending() == 0 {
				f.sync = SyncSaved
			}
			f.progress = prog
			f.leasedAt = taskIDs(tasks)
			if code != "" {
				f.code, f.doneURL = code, q.CompletionURL
			}
			f.paused = paused
			f.useHistory()
			if q.Completed {
				f.complete(ctx, q)
				return
			}
			f.setTasks(ctx, tasks)
		})
	})
}

func (f *taskFeed) fail(err error) {
	f.state = stateError
	switch {
	case StatusOf(err) == 403:
		f.errMsg = "You do not have access to this: " + err.Error()
	case StatusOf(err) == 404:
		f.errMsg = "Not found: " + err.Error()
	case errors.Is(err, ErrNetwork):
		f.errMsg = "The server cannot be reached. Judgments made before are kept in this browser; this page tries again every few seconds."
		f.sync = SyncOffline
		f.retryLoad = true
	default:
		f.errMsg = err.Error()
	}
}

// setTasks installs freshly leased tasks, dropping the ones judged here but
// perhaps not yet acknowledged (the server still counts them as leased).
func (f *taskFeed) setTasks(ctx app.Context, tasks []api.Task) {
	var keep []api.Task
	seen := map[int64]bool{}
	for _, t := range f.tasks {
		if !seen[t.ItemID] && !f.judged[t.ItemID] {
			keep = append(keep, t)
			seen[t.ItemID] = true
		}
	}
	for _, t := range tasks {
		// An item judged here (before a reload too: it is in the outbox,
		// or was sent from it since) is leased only until the server has
		// its judgment.
		if !seen[t.ItemID] && !f.judged[t.ItemID] && !f.outbox.Judged(t.ItemID) {
			keep = append(keep, t)
			seen[t.ItemID] = true
		}
	}
	wasCurrent := int64(0)
	if len(f.tasks) > 0 {
		wasCurrent = f.tasks[0].ItemID
	}
	f.tasks = keep
	if len(keep) == 0 {
		// Leases the server still counts may be judged here and waiting in
		// the outbox; the sync loop refills once they are sent.
		if f.outbox != nil && f.outbox.Pending() > 0 && f.sync != SyncOffline {
			f.state = stateLoading
		} else {
			f.state = stateEmpty
		}
		return
	}
	f.state = stateReady
	if keep[0].ItemID != wasCurrent {
		f.started = time.Now()
		f.clock.reset(f.started)
	}
	f.changed(ctx)
}

// taskIDs is the set of the tasks' items.
func taskIDs(tasks []api.Task) map[int64]bool {
	m := make(map[int64]bool, len(tasks))
	for _, t := range tasks {
		m[t.ItemID] = true
	}
	return m
}

// shownProgress is the progress to show: the last queue answer's, with the
// items judged here that it still counted as leased moved to done (sent
// since, or waiting in the outbox). The total does not change.
func (f *taskFeed) shownProgress() api.Progress {
	p := f.progress
	n := 0
	for id := range f.leasedAt {
		if f.submitted[id] || (f.outbox != nil && f.outbox.Judged(id)) {
			n++
		}
	}
	n = min(n, p.Leased)
	p.Done += n
	p.Leased -= n
	return p
}

// firstVisit reports whether this is the signed-in user's first visit of
// this task type in this browser (and remembers that it happened).
func (f *taskFeed) firstVisit() bool {
	if f.client == nil || f.me.UserID == 0 {
		return false
	}
	who := strconv.FormatInt(f.me.UserID, 10) + "." + f.storeProject
	if f.seenFor == who {
		return false
	}
	f.seenFor = who
	return FirstVisit(f.storage, f.me.UserID, f.storeProject, f.kind)
}

// useHistory loads the signed-in user's history of this kind in the
// page's project (storeProject).
func (f *taskFeed) useHistory() {
	if f.me.UserID != 0 && f.storage != nil {
		f.history = LoadHistory(f.storage, f.me.UserID, f.storeProject, f.kind)
	}
}

// revisit brings an item judged before back on screen, ahead of the
// others, to be corrected: a new judgment supersedes the earlier one. An
// item revisited before without a new judgment goes back to the judged.
func (f *taskFeed) revisit(ctx app.Context, t api.Task) {
	f.leaveRevisit()
	rest := make([]api.Task, 0, len(f.tasks)+1)
	rest = append(rest, t)
	for _, x := range f.tasks {
		if x.ItemID != t.ItemID {
			rest = append(rest, x)
		}
	}
	f.tasks = rest
	delete(f.judged, t.ItemID)
	f.revisiting = t.ItemID
	f.state = stateReady
	f.started = time.Now()
	f.clock.reset(f.started)
	f.changed(ctx)
}

// leaveRevisit puts the item being revisited away unchanged.
func (f *taskFeed) leaveRevisit() {
	if f.revisiting == 0 {
		return
	}
	id := f.revisiting
	f.revisiting = 0
	f.judged[id] = true
	if len(f.tasks) > 0 && f.tasks[0].ItemID == id {
		f.tasks = f.tasks[1:]
	}
}

// refill leases a batch of tasks in the background (api.QueueAsk: the
// callers refill at the low-water mark, api.QueueRefill).
func (f *taskFeed) refill(ctx app.Context) {
	if f.itemID > 0 {
		return
	}
	if f.refilling {
		f.refillAgain = true
		return
	}
	f.refilling = true
	cl, project, kind := f.client, f.project, f.kind
	n := api.QueueAsk(f.outbox.Pending())
	ctx.Async(func() {
		q, err := cl.Queue(context.Background(), project, kind, n)
		ctx.Dispatch(func(ctx app.Context) {
			f.refilling = false
			if f.refillAgain {
				// After this answer is applied: the one asked for while it
				// was out, if the page is still at the low-water mark.
				f.refillAgain = false
				defer func() {
					if !f.completed && api.QueueRefill(len(f.tasks)) {
						f.refill(ctx)
					}
				}()
			}
			if f.completed && (err != nil || !q.Completed) {
				// Completion is final on this page: a failed refill or an
				// answer computed before the one that said the participant
				// is done changes nothing.
				return
			}
			if err != nil {
				if errors.Is(err, ErrNetwork) {
					f.sync = SyncOffline
				}
				if len(f.tasks) == 0 {
					f.state = stateEmpty
				}
				return
			}
			f.progress = q.Progress
			f.leasedAt = taskIDs(q.Tasks)
			if q.CompletionCode != "" {
				f.code, f.doneURL = q.CompletionCode, q.CompletionURL
			}
			f.paused = q.PauseReason
			if q.Completed {
				f.complete(ctx, q)
				return
			}
			f.setTasks(ctx, q.Tasks)
		})
	})
}

// returnDelay is how long the completion page shows the code before it
// sends the participant back to the crowd platform.
const returnDelay = 8 * time.Second

// complete ends the participant's work on this page: they reached the
// project's quota, so the tasks on screen go (the server gave their leases
// back) and the completion code is shown; once every judgment is sent, the
// page returns them to the completion URL after returnDelay.
func (f *taskFeed) complete(ctx app.Context, q api.Queue) {
	f.completed = true
	f.code, f.doneURL = q.CompletionCode, q.CompletionURL
	f.tasks, f.leasedAt, f.revisiting = nil, nil, 0
	f.state = stateCompleted
	f.scheduleReturn(ctx)
}

// scheduleReturn starts the automatic return to the completion URL, once:
// only when the participant is done, a URL is set and nothing waits in the
// outbox (leaving would strand it).
func (f *taskFeed) scheduleReturn(ctx app.Context) {
	if !f.completed || f.returning || f.stay || f.doneURL == "" || f.pending > 0 || !app.IsClient {
		return
	}
	f.returning = true
	target := f.doneURL
	setTimeout(returnDelay, func() {
		ctx.Dispatch(func(ctx app.Context) {
			if f.stay || f.pending > 0 {
				f.returning = false
				return
			}
			app.Window().Get("location").Call("assign", target)
		})
	})
}

// current is the task on screen.
func (f *taskFeed) current() (api.Task, bool) {
	if f.state != stateReady || len(f.tasks) == 0 {
		return api.Task{}, false
	}
	return f.tasks[0], true
}

// useAccount makes the outbox the signed-in user's (a no-op if it is): the
// previous user's unsent judgments stay in this browser for their next
// sign-in and are never sent with this session.
func (f *taskFeed) useAccount(userID int64) {
	if userID == 0 {
		return
	}
	rememberAccount(f.storage, userID)
	if f.outbox.Account() != userID {
		f.outbox.Switch(userID)
		f.sync = SyncSaved
		if f.outbox.Pending() > 0 {
			f.sync = SyncPending
			f.poke()
		}
	}
	f.counts()
	f.orphans = Unattributed(f.storage)
}

// counts refreshes what the header shows about the outbox (the judgments
// kept aside without an author, f.orphans, change only on a migration at
// sign-in or a discard, not at every submit).
func (f *taskFeed) counts() {
	f.pending = f.outbox.Pending()
	f.refused = f.outbox.Rejected()
	f.rejected = len(f.refused)
}

// actionRefused carries the refused-judgments list's buttons to the feed
// (tags op = discard | resend | discard-unattributed, client_id).
const actionRefused = "outbox/refused"

func (f *taskFeed) refusedAction(ctx app.Context, op, clientID string) {
	switch op {
	case "discard":
		f.outbox.Discard(clientID)
	case "resend":
		f.outbox.Resend(clientID, time.Now())
		f.poke()
	case "discard-unattributed":
		DiscardUnattributed(f.storage)
	}
	f.counts()
	f.orphans = Unattributed(f.storage)
}

// describe names a task for people: its query and document title.
func describe(t api.Task) string {
	s := t.Query.Text
	if t.Document != nil && t.Document.Title != "" {
		s += " · " + t.Document.Title
	}
	if t.Paraphrase != "" {
		s += " · “" + t.Paraphrase + "”"
	}
	return s
}

// next records a judgment just queued in the outbox (taskFeed.submit) as
// done here and shows the next task at once (submit leases more once it is
// on screen).
func (f *taskFeed) next(ctx app.Context, req api.JudgmentRequest, item string) {
	f.judged[req.ItemID] = true
	f.submitted[req.ItemID] = true
	if f.revisiting == req.ItemID {
		f.revisiting = 0
	}
	f.history = PushHistory(f.history, HistoryEntry{Req: req, Item: item, At: time.Now()})
	// The panel lists it in the update that shows the next item (one
	// render per submit); it is stored in a browser task of its own, as the
	// judgment itself is already safe in the outbox.
	st, user, project, kind, hs := f.storage, f.me.UserID, f.storeProject, f.kind, f.history
	f.persistSoon("history", func() { f.historyW.Save(st, user, project, kind, hs) })
	f.tasks = f.tasks[1:]
	f.started = time.Now()
	f.clock.reset(f.started)
	if len(f.tasks) == 0 {
		if f.itemID > 0 {
			f.state = stateEmpty
		} else {
			f.state = stateLoading
		}
	}
	f.changed(ctx)
}

// afterPaint runs fn on the UI goroutine once the update in progress is on
// screen: after go-app's next frame (ctx.Defer) and a browser task boundary
// (setTimeout 0), so that the browser shows the next item before the
// judgment is sent or more tasks are leased — their requests and JSON work
// would otherwise run in the same turn of the browser's event loop and hold
// the new item off the screen. The judgment itself is already kept in the
// outbox when this is asked for.
func (f *taskFeed) afterPaint(ctx app.Context, fn func(ctx app.Context)) {
	if !app.IsClient {
		fn(ctx)
		return
	}
	ctx.Defer(func(ctx app.Context) {
		setTimeout(0, func() { ctx.Dispatch(fn) })
	})
}

// wakeForFrame makes sure the Go runtime runs again once go-app's next
// frame is due (120 a second), so the update a key press dispatched is on
// screen then. Without it the first submit after a page load sometimes
// waited ~230 ms for its frame, until an unrelated browser event (the
// storage writes' timer) woke the runtime (issue 25).
func wakeForFrame() { setTimeout(frameWake, func() {}) }

// frameWake is how long after a key press wakeForFrame wakes the runtime:
// two of go-app's frames (8.3 ms each).
const frameWake = 17 * time.Millisecond

// setTimeout runs fn once in a browser task of its own after d.
func setTimeout(d time.Duration, fn func()) {
	var cb app.Func
	cb = app.FuncOf(func(app.Value, []app.Value) any {
		cb.Release()
		fn()
		return nil
	})
	app.Window().Call("setTimeout", cb, d.Milliseconds())
}

// persistDelay is how long a browser-storage write (drafts, history) may
// wait: the changes made meanwhile are written together, so an annotator
// keying a judgment and its submit in quick succession costs one write, or
// none for a draft already deleted, instead of one per key.
const persistDelay = 250 * time.Millisecond

// persistSoon runs a browser-storage write within persistDelay, in a
// browser task of its own outside the UI goroutine: no key press or update
// (the next item after a submit) waits for it and no render follows it. A
// write scheduled again under the same name before it ran replaces the
// earlier one. fn may touch only snapshots and state safe for concurrent
// use. Writes still pending when the page is hidden or left run then
// (flushPersist), so a reload loses nothing.
func (f *taskFeed) persistSoon(name string, fn func()) {
	if !app.IsClient || f.client == nil { // not mounted
		fn()
		return
	}
	f.persistMu.Lock()
	first := len(f.persist) == 0
	if f.persist == nil {
		f.persist = map[string]func(){}
	}
	f.persist[name] = fn
	f.persistMu.Unlock()
	if !first {
		return
	}
	setTimeout(persistDelay, f.flushPersist)
}

// flushPersist runs the pending storage writes now.
func (f *taskFeed) flushPersist() {
	f.persistMu.Lock()
	fns := f.persist
	f.persist = nil
	f.persistMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// header renders the navigation bar, sync badge and progress for a page.
func (f *taskFeed) header(title string) app.UI {
	return app.Div().Body(
		NewNavBar().Me(f.me).Active(f.kind).Project(f.project),
		app.Div().Class("statusline").Body(
			app.H1().Class("page-title").Text(title),
			NewProgressBar().Progress(f.shownProgress()).Kind(f.kind),
			NewSyncBadge().State(string(f.sync)).Pending(f.pending).Rejected(f.rejected),
		),
		app.If(f.sync == SyncSignedOut && f.pending > 0, func() app.UI { return f.sessionEnded() }),
		app.If(len(f.refused) > 0 || len(f.orphans) > 0, func() app.UI {
			return NewRefusedList().Entries(f.refused).Unattributed(f.orphans)
		}),
	)
}

// sessionEnded says, when the server no longer takes the user's judgments
// (401: the session ended, expired, or the account was disabled, which ends
// its sessions), how many are not saved and what to do (issue 25: the page
// said "Saving…" for ever). They stay in the outbox.
func (f *taskFeed) sessionEnded() app.UI {
	return app.Div().ID("session-ended").Class("notice", "error").Role("alert").Body(
		app.P().Textf("Your session has ended: you were signed out, it expired, or your account was disabled. "+
			"%d judgment(s) you made are not saved on the server: they are kept in this browser and sent when you sign in here again. "+
			"If you cannot sign in, contact the researcher.", f.pending),
		app.A().Href("/login").Text("Sign in again"),
	)
}

// body renders the empty / loading / error states, or ready().
func (f *taskFeed) body(ready func(t api.Task) app.UI) app.UI {
	switch f.state {
	case stateLoading:
		return app.P().Class("notice").Aria("live", "polite").Text("Loading…")
	case stateError:
		return app.Div().Class("notice", "error").Role("alert").Body(
			app.P().Text(f.errMsg),
			app.A().Href("/").Text("Back to the start page"),
		)
	case stateCompleted:
		return f.completedNotice()
	case stateEmpty:
		msg := "Nothing left to judge here right now. Thank you!"
		if f.paused != "" {
			return app.Div().ID("paused-notice").Class("notice", "paused").Role("alert").Body(
				app.P().Text(f.paused),
				app.If(f.pending > 0, func() app.UI {
					return app.P().Textf("%d judgment(s) waiting to be sent.", f.pending)
				}),
			)
		}
		if f.sync == SyncOffline {
			msg = "You are offline and have judged every preloaded item. Your judgments are kept in this browser and sent when the connection is back."
		}
		return app.Div().Class("notice", "empty").Role("status").Body(
			app.P().Text(msg),
			app.If(f.pending > 0, func() app.UI {
				return app.P().Textf("%d judgment(s) waiting to be sent.", f.pending)
			}),
			app.If(f.code != "" && f.pending == 0, func() app.UI {
				return app.P().Body(app.Text("Your completion code: "), app.Strong().ID("completion-code").Text(f.code))
			}),
			app.If(f.doneURL != "" && f.pending == 0, func() app.UI {
				return app.P().Body(app.A().ID("completion-return").Class("button").Href(f.doneURL).Text("Return to the study"))
			}),
		)
	}
	t, ok := f.current()
	if !ok {
		return app.P().Class("notice").Text("Loading…")
	}
	return ready(t)
}

// completedNotice is the page of a participant who reached the quota: the
// code, large, and the way back to the crowd platform.
func (f *taskFeed) completedNotice() app.UI {
	return app.Div().ID("completed").Class("notice", "completed").Role("status").Body(
		app.H2().Text("You have finished this study. Thank you!"),
		app.If(f.pending > 0, func() app.UI {
			return app.P().Class("warning").Textf("%d judgment(s) are still being sent. Please keep this page open until they are saved.", f.pending)
		}),
		app.If(f.pending == 0 && f.code != "", func() app.UI {
			return app.Div().Body(
				app.P().Text("Your completion code:"),
				app.P().Class("completion-code").Body(app.Strong().ID("completion-code").Text(f.code)),
			)
		}),
		app.If(f.pending == 0 && f.doneURL != "", func() app.UI {
			return app.Div().Body(
				app.P().Body(app.A().ID("completion-return").Class("button").Href(f.doneURL).Text("Return to the study")),
				app.If(f.returning && !f.stay, func() app.UI {
					return app.P().Class("hint").Body(
						app.Text("Taking you back to the study in a few seconds. "),
						app.Button().ID("completion-stay").Type("button").Text("Stay on this page").
							OnClick(func(ctx app.Context, e app.Event) { f.stay = true }),
					)
				}),
			)
		}),
		app.If(f.pending == 0 && f.code == "" && f.doneURL == "", func() app.UI {
			return app.P().Text("You can close this page.")
		}),
	)
}

// rootAttrs decorates a page root with the attributes tests and CSS use.
// data-wasm exists only once the wasm side has mounted.
func (f *taskFeed) root(div app.HTMLDiv) app.HTMLDiv {
	div = div.DataSet("state", f.state).DataSet("kind", f.kind).DataSet("sync", string(f.sync)).DataSet("pending", f.pending).
		DataSet("paused", f.paused != "")
	if f.client != nil {
		div = div.DataSet("wasm", "1")
	}
	if t, ok := f.current(); ok {
		div = div.DataSet("item", t.ItemID)
	}
	return div
}

// idleCap is the longest gap between two inputs that still counts as work:
// reading a long document is work, a tab left open over lunch is not.
const idleCap = 2 * time.Minute

// activeClock measures the active time spent on one item: the time between
// inputs, each gap capped at idleCap.
type activeClock struct {
	mu     sync.Mutex
	active time.Duration
	last   time.Time
}

func (c *activeClock) reset(now time.Time) {
	c.mu.Lock()
	c.active, c.last = 0, now
	c.mu.Unlock()
}

func (c *activeClock) touch(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last.IsZero() {
		c.last = now
		return
	}
	gap := now.Sub(c.last)
	if gap > idleCap {
		gap = idleCap
	}
	if gap > 0 {
		c.active += gap
	}
	c.last = now
}

// take returns the active time up to now and starts over.
func (c *activeClock) take(now time.Time) time.Duration {
	c.touch(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.active
	c.active, c.last = 0, now
	return d
}
