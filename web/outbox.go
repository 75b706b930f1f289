package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"boolpool/web/api"
)

// outboxKey is the browser-storage key of the unsent judgments.
const outboxKey = "boolpool.outbox.v1"

// Storage is the part of go-app's BrowserStorage the outbox uses (a fake in
// tests).
type Storage interface {
	Set(k string, v any) error
	Get(k string, v any) error
}

// OutboxEntry is one judgment waiting to be acknowledged by the server.
type OutboxEntry struct {
	Req       api.JudgmentRequest `json:"req"`
	QueuedAt  time.Time           `json:"queued_at"`
	Attempts  int                 `json:"attempts"`
	NextTry   time.Time           `json:"next_try"`
	LastError string              `json:"last_error,omitempty"`
	Rejected  bool                `json:"rejected,omitempty"` // the server refused it (4xx): kept for the user, not retried
}

// Outbox keeps unsent judgments in browser storage, so a reload, a crash or
// a lost network loses nothing: a judgment is written here before the view
// moves on, and leaves only when the server acknowledged it. Retries back
// off exponentially (1 s … 30 s); the server write is idempotent on the
// client id, so a retry of a judgment whose answer was lost is harmless.
type Outbox struct {
	mu      sync.Mutex
	st      Storage
	entries []OutboxEntry
}

// LoadOutbox reads the outbox from storage.
func LoadOutbox(st Storage) *Outbox {
	o := &Outbox{st: st}
	if err := st.Get(outboxKey, &o.entries); err != nil {
		o.entries = nil
	}
	return o
}

func (o *Outbox) save() error {
	if err := o.st.Set(outboxKey, o.entries); err != nil {
		return fmt.Errorf("outbox: save: %w", err)
	}
	return nil
}

// Add queues a judgment (and persists it) before anything is sent.
func (o *Outbox) Add(req api.JudgmentRequest, now time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.entries = append(o.entries, OutboxEntry{Req: req, QueuedAt: now, NextTry: now})
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

// SyncState summarises the outbox for the status badge.
type SyncState string

// Sync states.
const (
	SyncSaved     SyncState = "saved"
	SyncPending   SyncState = "pending"
	SyncOffline   SyncState = "offline"
	SyncSignedOut SyncState = "signed-out"
)

// FlushResult says what a flush did.
type FlushResult struct {
	Sent  int
	State SyncState
	Err   error
}

// Flush sends every due judgment, oldest first, stopping at the first
// network failure (no point hammering a dead link).
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
			res.Sent++
			continue
		case errors.Is(err, ErrNetwork) || StatusOf(err) >= 500 || StatusOf(err) == 429 || StatusOf(err) == 408:
			o.retry(e.Req.ClientID, err, now())
			res.Err, res.State = err, SyncOffline
			return res
		case StatusOf(err) == 401:
			o.retry(e.Req.ClientID, err, now())
			res.Err, res.State = err, SyncSignedOut
			return res
		default:
			o.reject(e.Req.ClientID, err)
			res.Err = err
		}
	}
	if o.Pending() > 0 {
		res.State = SyncPending
	} else {
		res.State = SyncSaved
	}
	return res
}

func (o *Outbox) nextDue(now time.Time) (OutboxEntry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.entries {
		if !e.Rejected && !e.NextTry.After(now) {
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

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
