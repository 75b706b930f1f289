package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"boolpool/api"
	"boolpool/server/store"
)

var injections = []string{
	`' OR '1'='1`,
	`'; DROP TABLE judgments; --`,
	`Robert'); DELETE FROM users; --`,
	`" OR ""="`,
	`\'; SELECT pg_sleep(5); --`,
	"x\x00y",
}

// TestInjectionStringsAreData sends SQL-injection strings through every
// text field a client controls: they must be refused as bad input or
// stored verbatim, never executed, and never cause a 5xx.
func TestInjectionStringsAreData(t *testing.T) {
	e := newEnv(t, 3, nil)
	ctx := context.Background()
	for _, s := range injections {
		u := e.anon()
		if st := u.do("POST", "/api/auth/login", api.LoginRequest{Username: s, Password: s}, nil); st != http.StatusUnauthorized && st != http.StatusBadRequest {
			t.Fatalf("login with %q: status %d, want 401 or 400", s, st)
		}
		ann := e.login("annotator1")
		if st := ann.do("POST", "/api/projects/"+url.PathEscape(s)+"/queue", api.QueueRequest{Kind: "relevance", N: 1}, nil); st >= 500 || st == http.StatusOK {
			t.Fatalf("queue of project %q: status %d", s, st)
		}
		if st := ann.do("GET", "/api/projects/fixture/instructions?kind="+url.QueryEscape(s), nil, nil); st >= 500 {
			t.Fatalf("instructions kind %q: status %d", s, st)
		}
	}
	// Text fields of a judgment are stored verbatim.
	ann := e.login("annotator2")
	q := ann.queue("relevance", 1)
	if len(q.Tasks) == 0 {
		t.Fatal("no task")
	}
	comment := injections[1] + " " + injections[2]
	r := 2
	req := api.JudgmentRequest{ClientID: uuid(9001), AuthorID: ann.id, ItemID: q.Tasks[0].ItemID, Kind: "relevance", Relevance: &r,
		Evidence: "partial", Comment: comment, SkipReason: injections[0]}
	if st := ann.do("POST", "/api/judgments", req, nil); st != http.StatusCreated {
		t.Fatalf("judgment with injection text: status %d", st)
	}
	var found bool
	err := e.st.EachJudgment(ctx, e.fx.Project.ID, func(j store.JudgmentRow) error {
		if j.ClientID == uuid(9001) {
			found = j.Comment == comment && j.SkipReason == injections[0]
		}
		return nil
	})
	if err != nil || !found {
		t.Fatalf("injection text not stored verbatim (err %v)", err)
	}
	var users, judgments int
	if err := e.st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM judgments)`).Scan(&users, &judgments); err != nil {
		t.Fatalf("tables damaged: %v", err)
	}
	if users < 7 || judgments != 1 {
		t.Fatalf("users %d, judgments %d after injection attempts", users, judgments)
	}
}
