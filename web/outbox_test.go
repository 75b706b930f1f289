package web

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"boolpool/api"
)

// memStorage is an in-memory Storage that round-trips through JSON like
// the browser's.
type memStorage map[string][]byte

func (m memStorage) Set(k string, v any) error {
	b, err := json.Marshal(v)
	m[k] = b
	return err
}

func (m memStorage) Del(k string) { delete(m, k) }

func (m memStorage) Get(k string, v any) error {
	if b, ok := m[k]; ok {
		return json.Unmarshal(b, v)
	}
	return nil
}

func TestOutboxSurvivesReloadAndRetries(t *testing.T) {
	st := memStorage{}
	now := time.Unix(1000, 0)
	o := LoadOutbox(st, 7)
	for i := 1; i <= 3; i++ {
		if err := o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: int64(i)}, "", now); err != nil {
			t.Fatal(err)
		}
	}
	// A reload (new outbox from the same storage) keeps everything.
	o = LoadOutbox(st, 7)
	if o.Pending() != 3 || !o.Has(2) {
		t.Fatalf("after reload: %d pending", o.Pending())
	}
	offline := func(context.Context, api.JudgmentRequest) error { return fmt.Errorf("fetch: %w", ErrNetwork) }
	res := o.Flush(context.Background(), offline, func() time.Time { return now })
	if res.State != SyncOffline || o.Pending() != 3 {
		t.Fatalf("offline flush: %+v, %d pending", res, o.Pending())
	}
	// Backoff: nothing is due right away.
	var sent []int64
	online := func(_ context.Context, r api.JudgmentRequest) error { sent = append(sent, r.ItemID); return nil }
	if res := o.Flush(context.Background(), online, func() time.Time { return now }); res.Sent != 0 || res.State != SyncOffline {
		t.Errorf("during backoff: sent %d, state %q; want 0, still offline", res.Sent, res.State)
	}
	// Later, in order.
	res = o.Flush(context.Background(), online, func() time.Time { return now.Add(time.Minute) })
	if res.Sent != 3 || res.State != SyncSaved || o.Pending() != 0 || fmt.Sprint(sent) != "[1 2 3]" {
		t.Errorf("online flush: %+v sent %v", res, sent)
	}
	if LoadOutbox(st, 7).Pending() != 0 {
		t.Error("acknowledged judgments still stored")
	}
	// Sent items stay judged for this page (a stale lease of one is
	// dropped), not for the next load.
	if o.Has(2) || !o.Judged(2) || o.Judged(4) {
		t.Errorf("after sending: Has(2) %v, Judged(2) %v, Judged(4) %v; want false true false", o.Has(2), o.Judged(2), o.Judged(4))
	}
	if LoadOutbox(st, 7).Judged(2) {
		t.Error("a new load still counts item 2 as judged here")
	}
}

func TestOutboxRejectsKeepWork(t *testing.T) {
	st := memStorage{}
	o := LoadOutbox(st, 7)
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 1}, "", time.Now())
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 2}, "", time.Now())
	send := func(_ context.Context, r api.JudgmentRequest) error {
		if r.ItemID == 1 {
			return &APIError{Status: 400, Problem: api.Problem{Field: "relevance"}}
		}
		return nil
	}
	res := o.Flush(context.Background(), send, time.Now)
	if res.Sent != 1 || o.Pending() != 0 || len(o.Rejected()) != 1 {
		t.Errorf("flush %+v pending %d rejected %d", res, o.Pending(), len(o.Rejected()))
	}
	signedOut := func(context.Context, api.JudgmentRequest) error { return &APIError{Status: 401} }
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 3}, "", time.Now())
	if res := o.Flush(context.Background(), signedOut, time.Now); res.State != SyncSignedOut || o.Pending() != 1 {
		t.Errorf("401: %+v", res)
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := Backoff(i); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i, got, w)
		}
	}
}

func TestActiveClockCapsIdleGaps(t *testing.T) {
	var c activeClock
	t0 := time.Unix(0, 0)
	c.reset(t0)
	c.touch(t0.Add(10 * time.Second))
	c.touch(t0.Add(10*time.Second + time.Hour)) // left alone for an hour
	got := c.take(t0.Add(10*time.Second + time.Hour + 5*time.Second))
	if want := 10*time.Second + idleCap + 5*time.Second; got != want {
		t.Errorf("active %v, want %v", got, want)
	}
	if got := c.take(t0.Add(2 * time.Hour)); got != idleCap {
		t.Errorf("after take: %v, want the capped gap since", got)
	}
}

// TestWaitingForPaintIsBounded: the once-a-second flush waits for a
// submit's next item to be painted, but a submit whose paint never comes
// (a dialog that submitted and closed) holds no judgment back for longer
// than showingNextMax (TestSkipWithReasonAndUndo stalled on it).
func TestWaitingForPaintIsBounded(t *testing.T) {
	now := time.Now()
	if waitingForPaint(0, now) {
		t.Error("no submit on its way, yet the flush waits")
	}
	if !waitingForPaint(now.Add(-100*time.Millisecond).UnixNano(), now) {
		t.Error("a submit 100 ms ago whose item is not painted yet does not hold the flush")
	}
	if waitingForPaint(now.Add(-showingNextMax-time.Millisecond).UnixNano(), now) {
		t.Error("a submit whose paint never came holds the flush back for ever")
	}
}
