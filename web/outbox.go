package web

// The way of a judgment out of the browser, in this file: the judging
// pages hand it to taskFeed.submit, which queues it durably in the account's
// Outbox (Add) before the next task is shown; the feed's sync loop sends
// what is due (Outbox.Flush → Client.Submit: POST /api/judgments) and
// retries with backoff until the server acknowledges it.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Browser-storage keys. Each account has its own outbox: judgments wait
// for the session of the user who made them and are never sent with anyone
// else's (issue 11: annotator2's queued judgment was stored as
// annotator3's). The v1 outbox, shared by every sign-in of the browser and
// without authors, is migrated once: entries that name an author move to
// that author's outbox, the others (all v1 entries in practice) are kept
// aside under unattributedKey, shown to whoever signs in, and never sent.
const (
	outboxKeyV1     = "boolpool.outbox.v1"
	outboxKeyPrefix = "boolpool.outbox.v2."
	unattributedKey = "boolpool.outbox.unattributed"
)

// OutboxKey is the storage key of one account's outbox.
func OutboxKey(userID int64) string { return outboxKeyPrefix + strconv.FormatInt(userID, 10) }

// ErrNoAccount is returned by Add before the page knows who is signed in.
var ErrNoAccount = errors.New("outbox: not signed in: the judgment has no author")

// Storage is the part of go-app's BrowserStorage the outbox uses (a fake in
// tests).
type Storage interface {
	Set(k string, v any) error
	Get(k string, v any) error
	Del(k string)
}

// submit queues a judgment durably, moves to the next task at once
// (taskFeed.next), and once that task is on screen lets the sync loop send
// the judgment and leases a batch of tasks at the low-water mark
// (api.QueueRefill).
func (f *taskFeed) submit(ctx app.Context, req api.JudgmentRequest) error {
	req.ClientID = api.NewUUID()
	req.TimeSpentMs = f.clock.take(time.Now()).Milliseconds()
	item := ""
	if len(f.tasks) > 0 && f.tasks[0].ItemID == req.ItemID {
		item = describe(f.tasks[0])
	}
	if err := f.outbox.Add(req, item, time.Now()); err != nil {
		return err
	}
	f.counts()
	if f.sync == SyncSaved || f.sync == SyncPending {
		// Offline, signed out or another account's session: that still
		// holds for this judgment.
		f.sync = SyncPending
	}
	f.showingNext.Store(time.Now().UnixNano())
	f.next(ctx, req, item)
	// One update once the next task is shown: wake the sync loop and lease
	// a batch when few are left.
	f.afterPaint(ctx, func(ctx app.Context) {
		f.showingNext.Store(0)
		f.poke()
		if api.QueueRefill(len(f.tasks)) {
			f.refill(ctx)
		}
	})
	return nil
}

// showingNextMax bounds how long the once-a-second flush waits for a
// submit's next item to be painted.
const showingNextMax = 2 * time.Second

// waitingForPaint reports whether a submit made at since (UnixNano, 0 =
// none) still has its next item on the way to the screen at now.
func waitingForPaint(since int64, now time.Time) bool {
	return since != 0 && now.Sub(time.Unix(0, since)) < showingNextMax
}

func (f *taskFeed) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// syncLoop flushes the outbox whenever poked and once a second (not while
// a submit's next item is on its way to the screen: showingNext).
func (f *taskFeed) syncLoop(loopCtx context.Context, ctx app.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-loopCtx.Done():
			return
		case <-t.C:
			if waitingForPaint(f.showingNext.Load(), time.Now()) {
				continue
			}
		case <-f.wake:
		}
		ctx.Dispatch(func(ctx app.Context) {
			if f.retryLoad {
				f.loadTries++
				if f.loadTries%3 == 0 {
					f.retryLoad = false
					f.load(ctx)
				}
			}
		})
		if f.outbox.Pending() == 0 {
			continue
		}
		res := f.outbox.Flush(loopCtx, func(c context.Context, req api.JudgmentRequest) error {
			_, err := f.client.Submit(c, req)
			return err
		}, time.Now)
		ctx.Dispatch(func(ctx app.Context) {
			wasOffline := f.sync == SyncOffline
			f.sync = res.State
			f.counts()
			for _, e := range f.refused {
				// A refused item may be opened again to correct it.
				delete(f.judged, e.Req.ItemID)
				delete(f.submitted, e.Req.ItemID)
			}
			if res.Sent > 0 {
				// Not counted here: shownProgress counts the judgments the
				// last queue answer did not (adding them here counted some
				// twice: "10 done" with 9 judged, issue 17).
				f.lastSave = time.Now()
			}
			f.scheduleReturn(ctx)
			switch {
			case f.completed:
			case f.retryLoad && res.Sent > 0:
				f.retryLoad = false
				f.load(ctx)
			case (wasOffline || res.Sent > 0) && api.QueueRefill(len(f.tasks)) && f.itemID == 0:
				f.refill(ctx)
			}
		})
	}
}

// OutboxEntry is one judgment waiting to be acknowledged by the server.
type OutboxEntry struct {
	Req       api.JudgmentRequest `json:"req"`
	Item      string              `json:"item,omitempty"` // what was judged, for people (query · document)
	QueuedAt  time.Time           `json:"queued_at"`
	Attempts  int                 `json:"attempts"`
	NextTry   time.Time           `json:"next_try"`
	LastError string              `json:"last_error,omitempty"`
	Rejected  bool                `json:"rejected,omitempty"` // the server refused it (4xx): kept for the user, not retried
}

// Outbox keeps one account's unsent judgments in browser storage, so a
// reload, a crash, a lost network or a sign-out loses nothing: a judgment
// is written here before the view moves on, and leaves only when the server
// acknowledged it. Every entry carries its author (Req.AuthorID, set by
// Add), and the server refuses it from any other session. Retries back off
// exponentially (1 s … 30 s); the server write is idempotent on the client
// id, so a retry of a judgment whose answer was lost is harmless.
type Outbox struct {
	mu      sync.Mutex
	st      Storage
	userID  int64
	entries []OutboxEntry
	// sent are the items whose judgment this outbox sent since it was
	// loaded: a lease answer computed before the server stored one may
	// arrive after it left the outbox (issue 25: an item judged offline
	// came back as new after an offline reload).
	sent map[int64]bool
	// failed is why the last send failed (offline, signed out, another
	// account), until one succeeds: a flush with nothing due during the
	// backoff reports it instead of "pending" (issue 25: a disabled
	// account's page said "Saving…" for ever).
	failed SyncState
}

// LoadOutbox reads userID's outbox from storage (userID 0: nobody is known
// to be signed in; the outbox is empty and Add refuses).
func LoadOutbox(st Storage, userID int64) *Outbox {
	o := &Outbox{st: st}
	o.Switch(userID)
	return o
}

// Switch makes the outbox userID's: another sign-in's entries stay in
// storage, untouched, for that user's next session.
func (o *Outbox) Switch(userID int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	migrateV1(o.st)
	o.userID, o.entries, o.sent, o.failed = userID, nil, nil, ""
	if userID == 0 {
		return
	}
	var all []OutboxEntry
	if err := o.st.Get(OutboxKey(userID), &all); err != nil {
		return
	}
	var stray []OutboxEntry
	for _, e := range all {
		if e.Req.AuthorID == userID {
			o.entries = append(o.entries, e)
		} else {
			stray = append(stray, e)
		}
	}
	if len(stray) > 0 {
		// Cannot happen through Add; set aside rather than send.
		keepAside(o.st, stray)
		_ = o.save()
	}
}

// Account is the user whose outbox this is (0 if none).
func (o *Outbox) Account() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.userID
}

// migrateV1 moves the shared v1 outbox into per-account outboxes: an entry
// goes to its author's, and one without an author is kept aside.
func migrateV1(st Storage) {
	var old []OutboxEntry
	if err := st.Get(outboxKeyV1, &old); err != nil || len(old) == 0 {
		return
	}
	byAuthor := map[int64][]OutboxEntry{}
	var orphans []OutboxEntry
	for _, e := range old {
		if e.Req.AuthorID > 0 {
			byAuthor[e.Req.AuthorID] = append(byAuthor[e.Req.AuthorID], e)
		} else {
			orphans = append(orphans, e)
		}
	}
	for id, es := range byAuthor {
		var cur []OutboxEntry
		_ = st.Get(OutboxKey(id), &cur)
		if err := st.Set(OutboxKey(id), append(cur, es...)); err != nil {
			return // keep v1 for the next try
		}
	}
	if len(orphans) > 0 && keepAside(st, orphans) != nil {
		return
	}
	st.Del(outboxKeyV1)
}

// keepAside adds entries to the unattributed pile.
func keepAside(st Storage, es []OutboxEntry) error {
	var cur []OutboxEntry
	_ = st.Get(unattributedKey, &cur)
	return st.Set(unattributedKey, append(cur, es...))
}

// Unattributed returns the judgments kept aside because nobody knows who
// made them (from the shared v1 outbox): they are never sent.
func Unattributed(st Storage) []OutboxEntry {
	var es []OutboxEntry
	if err := st.Get(unattributedKey, &es); err != nil {
		return nil
	}
	return es
}

// DiscardUnattributed deletes the judgments kept aside.
func DiscardUnattributed(st Storage) { st.Del(unattributedKey) }

func (o *Outbox) save() error {
	if o.userID == 0 {
		return nil
	}
	if len(o.entries) == 0 {
		o.st.Del(OutboxKey(o.userID))
		return nil
	}
	if err := o.st.Set(OutboxKey(o.userID), o.entries); err != nil {
		return fmt.Errorf("outbox: save: %w", err)
	}
	return nil
}

// Add queues a judgment (and persists it) before anything is sent, as the
// account's: it sets req.AuthorID. item describes what was judged, for the
// user, should the server refuse it. A new judgment of an item replaces a
// refused one of the same item (it is its correction).
func (o *Outbox) Add(req api.JudgmentRequest, item string, now time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.userID == 0 {
		return ErrNoAccount
	}
	req.AuthorID = o.userID
	keep := o.entries[:0:0]
	for _, e := range o.entries {
		if !(e.Rejected && e.Req.ItemID == req.ItemID && e.Req.Kind == req.Kind) {
			keep = append(keep, e)
		}
	}
	o.entries = append(keep, OutboxEntry{Req: req, Item: item, QueuedAt: now, NextTry: now})
	return o.save()
}

// Pending counts the judgments still to be sent (not rejected).
func (o *Outbox) Pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, e := range o.entries {
		if !e.Rejected {
			n++
		}
	}
	return n
}

// Rejected returns the judgments the server refused.
func (o *Outbox) Rejected() []OutboxEntry {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []OutboxEntry
	for _, e := range o.entries {
		if e.Rejected {
			out = append(out, e)
		}
	}
	return out
}

// Has reports whether an item has a judgment waiting in the outbox.
func (o *Outbox) Has(itemID int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.entries {
		if e.Req.ItemID == itemID && !e.Rejected {
			return true
		}
	}
	return false
}

// Judged reports whether an item has a judgment waiting in the outbox or
// sent from it since it was loaded: a lease of that item is stale.
func (o *Outbox) Judged(itemID int64) bool {
	if o.Has(itemID) {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sent[itemID]
}

// SyncState summarises the outbox for the status badge.
type SyncState string

// Sync states.
const (
	SyncSaved     SyncState = "saved"
	SyncPending   SyncState = "pending"
	SyncOffline   SyncState = "offline"
	SyncSignedOut SyncState = "signed-out"
	// SyncOtherAccount: the browser's session is someone else's (signed in
	// in another tab); the judgments wait for their author.
	SyncOtherAccount SyncState = "other-account"
)

// ErrOtherAccount is what a send function returns, without sending, when
// the session is not the judgment's author's.
var ErrOtherAccount = errors.New("this browser is signed in as another user")

// isAuthorRefusal reports the server refusing a judgment because the
// session is not its author's (403 naming author_id), or the client finding
// that out before sending.
func isAuthorRefusal(err error) bool {
	var ae *APIError
	return errors.Is(err, ErrOtherAccount) || errors.As(err, &ae) && ae.Status == 403 && ae.Problem.Field == "author_id"
}

// FlushResult says what a flush did.
type FlushResult struct {
	Sent  int
	State SyncState
	Err   error
}

// Flush sends every due judgment of the account, oldest first, stopping at
// the first network failure (no point hammering a dead link) and at a
// session that is not the account's (the judgments wait for their author).
func (o *Outbox) Flush(ctx context.Context, send func(context.Context, api.JudgmentRequest) error, now func() time.Time) FlushResult {
	var res FlushResult
	for {
		e, ok := o.nextDue(now())
		if !ok {
			break
		}
		err := send(ctx, e.Req)
		switch {
		case err == nil:
			o.remove(e.Req.ClientID)
			o.setFailed("")
			res.Sent++
			continue
		case errors.Is(err, ErrNetwork) || StatusOf(err) >= 500 || StatusOf(err) == 429 || StatusOf(err) == 408:
			o.retry(e.Req.ClientID, err, now())
			res.Err, res.State = err, o.setFailed(SyncOffline)
			return res
		case StatusOf(err) == 401:
			o.retry(e.Req.ClientID, err, now())
			res.Err, res.State = err, o.setFailed(SyncSignedOut)
			return res
		case isAuthorRefusal(err):
			o.retry(e.Req.ClientID, err, now())
			res.Err, res.State = err, o.setFailed(SyncOtherAccount)
			return res
		default:
			o.reject(e.Req.ClientID, err)
			res.Err = err
		}
	}
	switch {
	case o.Pending() == 0:
		res.State = SyncSaved
	case o.Failed() != "":
		// Nothing was due (backoff): the last failure still holds.
		res.State = o.Failed()
	default:
		res.State = SyncPending
	}
	return res
}

// setFailed records why sending fails ("" once a send succeeded) and
// returns it.
func (o *Outbox) setFailed(s SyncState) SyncState {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed = s
	return s
}

// Failed is why the last send failed, "" if it did not (or nothing was
// sent yet).
func (o *Outbox) Failed() SyncState {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failed
}

// Submit sends one judgment; it never sends one whose author is not the
// session's user (ErrOtherAccount; the server refuses it too). After a reload while offline the page may not
// know the session's CSRF token yet, and a token can go stale when the user
// signs in again in another tab: both are fixed by asking /api/me and trying
// once more, never by giving up on the judgment.
func (c *Client) Submit(ctx context.Context, req api.JudgmentRequest) (api.JudgmentResponse, error) {
	c.mu.Lock()
	known := c.csrf != ""
	c.mu.Unlock()
	if !known {
		me, err := c.Me(ctx)
		if err != nil {
			return api.JudgmentResponse{}, err
		}
		if me.UserID != req.AuthorID {
			return api.JudgmentResponse{}, fmt.Errorf("judgment by user %d, session of %s: %w", req.AuthorID, me.Username, ErrOtherAccount)
		}
	}
	var res api.JudgmentResponse
	err := c.do(ctx, http.MethodPost, "/api/judgments", req, &res)
	if isCSRFError(err) {
		me, merr := c.Me(ctx)
		if merr != nil {
			return res, merr
		}
		if me.UserID != req.AuthorID {
			return res, fmt.Errorf("judgment by user %d, session of %s: %w", req.AuthorID, me.Username, ErrOtherAccount)
		}
		err = c.do(ctx, http.MethodPost, "/api/judgments", req, &res)
	}
	return res, err
}

// isCSRFError reports a 403 caused by a missing or stale CSRF token.
func isCSRFError(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusForbidden && strings.Contains(ae.Problem.Detail, api.CSRFHeader)
}

func (o *Outbox) nextDue(now time.Time) (OutboxEntry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.entries {
		if !e.Rejected && !e.NextTry.After(now) && e.Req.AuthorID == o.userID && o.userID != 0 {
			return e, true
		}
	}
	return OutboxEntry{}, false
}

func (o *Outbox) remove(clientID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, e := range o.entries {
		if e.Req.ClientID == clientID {
			if o.sent == nil {
				o.sent = map[int64]bool{}
			}
			o.sent[e.Req.ItemID] = true
			o.entries = append(o.entries[:i], o.entries[i+1:]...)
			break
		}
	}
	_ = o.save()
}

// Backoff is the wait before retry number attempts (1 s doubling to 30 s).
func Backoff(attempts int) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < 30*time.Second; i++ {
		d *= 2
	}
	if d > 30*time.Second {
		d = 30 * time.Second
	}
	return d
}

// retry backs off after a failure that is not the judgment's fault (the
// network or the server). The whole queue waits, so judgments still go out
// in the order they were made (a correction never overtakes its original).
func (o *Outbox) retry(clientID string, err error, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := now.Add(time.Second)
	for i := range o.entries {
		if o.entries[i].Req.ClientID == clientID {
			o.entries[i].Attempts++
			o.entries[i].LastError = err.Error()
			next = now.Add(Backoff(o.entries[i].Attempts))
		}
	}
	for i := range o.entries {
		if o.entries[i].NextTry.Before(next) {
			o.entries[i].NextTry = next
		}
	}
	_ = o.save()
}

// RetryNow makes every waiting judgment due (the network came back).
func (o *Outbox) RetryNow(now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.entries {
		o.entries[i].NextTry = now
	}
	_ = o.save()
}

func (o *Outbox) reject(clientID string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.entries {
		if o.entries[i].Req.ClientID == clientID {
			o.entries[i].Rejected = true
			o.entries[i].LastError = err.Error()
		}
	}
	_ = o.save()
}

// RejectedFor returns the refused judgment of an item, if there is one (the
// judging page fills its form from it, to be corrected and sent again).
func (o *Outbox) RejectedFor(itemID int64, kind string) (OutboxEntry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.entries) - 1; i >= 0; i-- {
		if e := o.entries[i]; e.Rejected && e.Req.ItemID == itemID && e.Req.Kind == kind {
			return e, true
		}
	}
	return OutboxEntry{}, false
}

// Discard deletes a refused judgment (the user chose to drop it).
func (o *Outbox) Discard(clientID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, e := range o.entries {
		if e.Req.ClientID == clientID && e.Rejected {
			o.entries = append(o.entries[:i], o.entries[i+1:]...)
			break
		}
	}
	_ = o.save()
}

// Resend sends a refused judgment again, unchanged (the refusal may have
// been temporary, e.g. a 409 while the item was being reassigned).
func (o *Outbox) Resend(clientID string, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.entries {
		if o.entries[i].Req.ClientID == clientID {
			o.entries[i].Rejected, o.entries[i].NextTry = false, now
		}
	}
	_ = o.save()
}

// accountKey remembers who was last signed in in this browser, so a reload
// while offline still shows (and keeps sending, once the network is back)
// that user's outbox. It is not a credential: the server checks every
// judgment's author against the session.
const accountKey = "boolpool.account.v1"

// rememberAccount records the signed-in user.
func rememberAccount(st Storage, userID int64) { _ = st.Set(accountKey, userID) }

// rememberedAccount is the last signed-in user (0 if none).
func rememberedAccount(st Storage) int64 {
	var id int64
	if err := st.Get(accountKey, &id); err != nil {
		return 0
	}
	return id
}

// forgetAccount is part of signing out.
func forgetAccount(st Storage) { st.Del(accountKey) }
