package web

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"boolpool/api"
)

// recorder is a send function that records what it sent.
type recorder struct{ sent []api.JudgmentRequest }

func (r *recorder) send(_ context.Context, req api.JudgmentRequest) error {
	r.sent = append(r.sent, req)
	return nil
}

// Issue 11, defect 4: the outbox kept annotator2's judgments after sign-out
// and sent them with annotator3's session. Each account now has its own
// outbox, every entry names its author, and only that account's outbox is
// ever flushed.
func TestOutboxIsPerAccount(t *testing.T) {
	const a2, a3 = 2, 3
	st := memStorage{}
	now := time.Unix(1000, 0)
	o := LoadOutbox(st, a2)
	if err := o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 10, AuthorID: a3}, "q · d", now); err != nil {
		t.Fatal(err)
	}
	// annotator2 signs out with the judgment unsent; annotator3 signs in.
	o.Switch(a3)
	if o.Pending() != 0 || o.Has(10) {
		t.Fatalf("annotator3 sees %d pending of annotator2's", o.Pending())
	}
	var r recorder
	if res := o.Flush(context.Background(), r.send, func() time.Time { return now }); res.Sent != 0 || len(r.sent) != 0 {
		t.Fatalf("annotator3's session sent %v", r.sent)
	}
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 11}, "", now)
	o.Flush(context.Background(), r.send, func() time.Time { return now })
	if len(r.sent) != 1 || r.sent[0].ItemID != 11 || r.sent[0].AuthorID != a3 {
		t.Fatalf("annotator3 sent %+v, want only their item 11 as author 3", r.sent)
	}
	// A reload as annotator3 still has nothing of annotator2's.
	if n := LoadOutbox(st, a3).Pending(); n != 0 {
		t.Errorf("annotator3 after reload: %d pending", n)
	}
	// annotator2 comes back: their judgment goes out as theirs (Add set the
	// author from the account, whatever the caller put there).
	o.Switch(a2)
	r.sent = nil
	if res := o.Flush(context.Background(), r.send, func() time.Time { return now }); res.Sent != 1 || res.State != SyncSaved {
		t.Fatalf("annotator2 flush %+v", res)
	}
	if len(r.sent) != 1 || r.sent[0].ItemID != 10 || r.sent[0].AuthorID != a2 {
		t.Errorf("annotator2 sent %+v, want item 10 as author 2", r.sent)
	}
	if _, ok := st[OutboxKey(a2)]; ok {
		t.Error("an empty outbox is still stored")
	}
	// Nobody known to be signed in: nothing can be queued.
	if err := LoadOutbox(st, 0).Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 12}, "", now); !errors.Is(err, ErrNoAccount) {
		t.Errorf("add without an account: %v", err)
	}
}

// The session turned out to be someone else's (another tab signed in as
// another user): the judgment waits for its author, it is not refused.
func TestOutboxWaitsWhenTheSessionIsAnotherUsers(t *testing.T) {
	st := memStorage{}
	now := time.Unix(1000, 0)
	o := LoadOutbox(st, 2)
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 10}, "", now)
	for _, err := range []error{
		&APIError{Status: 403, Problem: api.Problem{Field: "author_id", Detail: "author_id: made by user 2"}},
		fmt.Errorf("session of annotator3: %w", ErrOtherAccount),
	} {
		res := o.Flush(context.Background(), func(context.Context, api.JudgmentRequest) error { return err }, func() time.Time { return now })
		if res.State != SyncOtherAccount || o.Pending() != 1 || len(o.Rejected()) != 0 {
			t.Errorf("%v: %+v, %d pending, %d rejected; want it kept pending", err, res, o.Pending(), len(o.Rejected()))
		}
		now = now.Add(time.Minute)
	}
}

// The v1 outbox was shared by every sign-in and its entries name no
// author: they are kept aside, never sent by anyone, and an entry that does
// name its author goes to that author's outbox.
func TestOutboxV1EntriesAreNeverSentUnderAnotherUser(t *testing.T) {
	st := memStorage{}
	now := time.Unix(1000, 0)
	v1 := []OutboxEntry{
		{Req: api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 1, Kind: api.KindRelevance}, QueuedAt: now, NextTry: now},
		{Req: api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 2, Kind: api.KindRelevance}, QueuedAt: now, NextTry: now},
		{Req: api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 3, Kind: api.KindRelevance, AuthorID: 5}, QueuedAt: now, NextTry: now},
	}
	if err := st.Set(outboxKeyV1, v1); err != nil {
		t.Fatal(err)
	}
	o := LoadOutbox(st, 3)
	var r recorder
	o.Flush(context.Background(), r.send, func() time.Time { return now })
	if o.Pending() != 0 || len(r.sent) != 0 {
		t.Fatalf("user 3 has %d pending and sent %v of the v1 outbox", o.Pending(), r.sent)
	}
	if _, ok := st[outboxKeyV1]; ok {
		t.Error("v1 outbox still stored after the migration")
	}
	if got := Unattributed(st); len(got) != 2 || got[0].Req.ItemID != 1 || got[1].Req.ItemID != 2 {
		t.Errorf("kept aside %+v, want items 1 and 2", got)
	}
	o.Switch(5)
	o.Flush(context.Background(), r.send, func() time.Time { return now })
	if len(r.sent) != 1 || r.sent[0].ItemID != 3 || r.sent[0].AuthorID != 5 {
		t.Errorf("user 5 sent %+v, want their item 3", r.sent)
	}
	// Loading again migrates nothing twice.
	LoadOutbox(st, 3)
	if got := Unattributed(st); len(got) != 2 {
		t.Errorf("after a second load %d kept aside", len(got))
	}
	DiscardUnattributed(st)
	if len(Unattributed(st)) != 0 {
		t.Error("discard kept them")
	}
}

// Issue 11, defect 12: a refused judgment is named and recoverable: the
// entry keeps what was judged and the server's reason, it can be sent
// again or discarded, and a new judgment of the item replaces it.
func TestOutboxRefusedJudgmentsAreRecoverable(t *testing.T) {
	st := memStorage{}
	now := time.Unix(1000, 0)
	o := LoadOutbox(st, 2)
	rel := 2
	long := api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 10, Kind: api.KindRelevance, Relevance: &rel, Evidence: "partial", Comment: "very long"}
	_ = o.Add(long, "birds of the andes · Tangara", now)
	_ = o.Add(api.JudgmentRequest{ClientID: api.NewUUID(), ItemID: 11, Kind: api.KindRelevance}, "other", now)
	refuse := func(_ context.Context, r api.JudgmentRequest) error {
		if r.ItemID == 10 {
			return &APIError{Status: 400, Problem: api.Problem{Field: "comment", Detail: "comment: longer than 4000 bytes"}}
		}
		return &APIError{Status: 409, Problem: api.Problem{Field: "client_id", Detail: "client_id: stored before with a different relevance"}}
	}
	o.Flush(context.Background(), refuse, func() time.Time { return now })
	o = LoadOutbox(st, 2) // survives a reload
	rej := o.Rejected()
	if len(rej) != 2 || rej[0].Item != "birds of the andes · Tangara" || rej[0].LastError != "comment: longer than 4000 bytes" {
		t.Fatalf("rejected %+v, want the item named with the server's reason", rej)
	}
	e, ok := o.RejectedFor(10, api.KindRelevance)
	if !ok || e.Req.Comment != "very long" || *e.Req.Relevance != 2 {
		t.Fatalf("RejectedFor(10) = %+v %v, want the typed judgment", e, ok)
	}
	// The corrected judgment replaces the refused one.
	fixed := long
	fixed.ClientID, fixed.Comment = api.NewUUID(), "short"
	_ = o.Add(fixed, "birds of the andes · Tangara", now)
	if _, ok := o.RejectedFor(10, api.KindRelevance); ok || o.Pending() != 1 || len(o.Rejected()) != 1 {
		t.Errorf("after the correction: %d pending, %d rejected", o.Pending(), len(o.Rejected()))
	}
	// Sending the other again, then discarding it.
	other := o.Rejected()[0].Req.ClientID
	o.Resend(other, now)
	if o.Pending() != 2 || len(o.Rejected()) != 0 {
		t.Errorf("after resend: %d pending %d rejected", o.Pending(), len(o.Rejected()))
	}
	o.Flush(context.Background(), refuse, func() time.Time { return now })
	o.Discard(other)
	if len(o.Rejected()) != 1 || o.Rejected()[0].Req.ItemID != 10 {
		t.Errorf("after discard: %+v", o.Rejected())
	}
}
