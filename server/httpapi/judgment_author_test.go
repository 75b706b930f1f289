package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"boolpool/api"
)

// A judgment is stored only under the user who made it: the browser sends
// its author, and a session of anyone else is refused (issue 11, defect 4:
// annotator2's queued judgment was stored as annotator3's).
func TestJudgmentAuthorMustBeTheSession(t *testing.T) {
	e := newEnv(t, 2, nil)
	a1, a2 := e.login("annotator1"), e.login("annotator2")
	item1 := a1.queue("relevance", 1).Tasks[0].ItemID
	item2 := a2.queue("relevance", 1).Tasks[0].ItemID

	// a1's judgment of a1's item, sent with a2's session (the item is a2's
	// too, r = 2): refused, nothing stored.
	made := api.JudgmentRequest{ClientID: uuid(101), AuthorID: a1.id, ItemID: item2, Kind: "relevance", Relevance: rel(3), Evidence: "complete"}
	if q := a2.queue("relevance", 2); len(q.Tasks) == 0 {
		t.Fatal("no lease for annotator2")
	}
	var p api.Problem
	if st := a2.do("POST", "/api/judgments", made, &p); st != 403 || p.Field != "author_id" || !strings.Contains(p.Detail, "session") {
		t.Errorf("another author's judgment: %d %+v, want 403 naming author_id", st, p)
	}
	if n, _ := e.st.CountJudgmentsByClient(context.Background(), uuid(101)); n != 0 {
		t.Errorf("refused judgment stored %d times", n)
	}
	// A judgment claiming someone else as author, from their own session.
	claim := made
	claim.ItemID, claim.AuthorID = item1, a2.id
	if st := a1.do("POST", "/api/judgments", claim, &p); st != 403 || p.Field != "author_id" {
		t.Errorf("claimed author: %d %+v, want 403 naming author_id", st, p)
	}
	// Old clients that send no author are told what is missing.
	none := made
	none.AuthorID = 0
	if st := a2.do("POST", "/api/judgments", none, &p); st != 400 || p.Field != "author_id" {
		t.Errorf("no author: %d %+v, want 400 naming author_id", st, p)
	}
	// The author's own session stores it.
	own := made
	own.AuthorID = a2.id
	if st := a2.do("POST", "/api/judgments", own, nil); st != 201 {
		t.Errorf("own judgment: %d, want 201", st)
	}
}

// A resend under a stored client id is idempotent only if it is the same
// judgment; a different one is a 409 and leaves the stored one alone (issue
// 11, defect 8: it answered 200 "duplicate" and dropped the new payload).
func TestJudgmentClientIDReuseWithAnotherPayloadConflicts(t *testing.T) {
	e := newEnv(t, 2, nil)
	a1 := e.login("annotator1")
	item := a1.queue("relevance", 1).Tasks[0].ItemID
	req := api.JudgmentRequest{ClientID: uuid(201), AuthorID: a1.id, ItemID: item, Kind: "relevance", Relevance: rel(2), Evidence: "partial",
		Attributions: []api.Attribution{{Atom: 0, Sentences: []int{2, 0}, Satisfied: "yes"}}, Comment: "first thoughts", TimeSpentMs: 1200}
	var first api.JudgmentResponse
	if st := a1.do("POST", "/api/judgments", req, &first); st != 201 {
		t.Fatalf("submit: %d", st)
	}
	// The identical body (an outbox retry) is acknowledged again; the time
	// spent is not something the rater typed and may differ.
	same := req
	same.TimeSpentMs = 1300
	same.Attributions = []api.Attribution{{Atom: 0, Sentences: []int{0, 2, 2}, Satisfied: "yes"}} // cleaned to the same
	var again api.JudgmentResponse
	if st := a1.do("POST", "/api/judgments", same, &again); st != 200 || !again.Duplicate || again.ID != first.ID {
		t.Errorf("identical resend: %d %+v, want 200 duplicate of %d", st, again, first.ID)
	}
	changes := []struct {
		name, detail string
		change       func(r *api.JudgmentRequest)
	}{
		{"relevance", "relevance", func(r *api.JudgmentRequest) { r.Relevance = rel(3) }},
		{"evidence", "evidence", func(r *api.JudgmentRequest) { r.Evidence = "complete" }},
		{"attributions", "attributions", func(r *api.JudgmentRequest) {
			r.Attributions = []api.Attribution{{Atom: 0, Sentences: []int{1}, Satisfied: "yes"}}
		}},
		{"comment", "comment", func(r *api.JudgmentRequest) { r.Comment = "second thoughts" }},
		{"skip", "skip_reason", func(r *api.JudgmentRequest) { r.SkipReason = "cannot read it" }},
	}
	for _, c := range changes {
		r := req
		c.change(&r)
		var p api.Problem
		if st := a1.do("POST", "/api/judgments", r, &p); st != 409 || p.Field != "client_id" || !strings.Contains(p.Detail, c.detail) {
			t.Errorf("%s changed under the same client id: %d %+v, want 409 naming client_id and %q", c.name, st, p, c.detail)
		}
	}
	js, _ := e.st.JudgmentsByItem(context.Background(), item)
	if len(js) != 1 || *js[0].Relevance != 2 || js[0].Comment != "first thoughts" {
		t.Errorf("stored judgments %+v, want only the first", js)
	}

	// Paraphrases compare their text.
	pq := a1.queue("paraphrase", 1)
	para := api.JudgmentRequest{ClientID: uuid(202), AuthorID: a1.id, ItemID: pq.Tasks[0].ItemID, Kind: "paraphrase",
		Paraphrase: &api.ParaphraseAnswer{Text: "Birds of the Andes, not Colombian ones"}}
	if st := a1.do("POST", "/api/judgments", para, nil); st != 201 {
		t.Fatalf("paraphrase: %d", st)
	}
	if st := a1.do("POST", "/api/judgments", para, nil); st != 200 {
		t.Errorf("identical paraphrase resend: %d, want 200", st)
	}
	other := para
	other.Paraphrase = &api.ParaphraseAnswer{Text: "Something else entirely"}
	var p api.Problem
	if st := a1.do("POST", "/api/judgments", other, &p); st != 409 || !strings.Contains(p.Detail, "payload") {
		t.Errorf("changed paraphrase under the same client id: %d %+v, want 409", st, p)
	}
}
