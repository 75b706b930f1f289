package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"boolpool/api"
	"boolpool/server/store"
)

// judgeForReview has annotator1 grade every relevance item 3 and annotator2
// grade the first two 3 and the rest 0, through the API; it returns each
// annotator's judgment ids by item.
func judgeForReview(t *testing.T, e *env) map[string]map[int64]int64 {
	t.Helper()
	out := map[string]map[int64]int64{}
	n := 0
	for _, name := range []string{"annotator1", "annotator2"} {
		u := e.login(name)
		out[name] = map[int64]int64{}
		u.eachRelevanceTask(func(task api.Task) {
			grade := 3
			if name == "annotator2" && task.ItemID != e.fx.Relevance[0] && task.ItemID != e.fx.Relevance[1] {
				grade = 0
			}
			n++
			var res api.JudgmentResponse
			if st := u.do("POST", "/api/judgments", api.JudgmentRequest{ClientID: uuid(5000 + n), AuthorID: u.id, ItemID: task.ItemID,
				Kind: api.KindRelevance, Relevance: rel(grade), Evidence: api.EvidenceComplete, TimeSpentMs: 500}, &res); st != 201 {
				t.Fatalf("%s judges item %d: status %d", name, task.ItemID, st)
			}
			out[name][task.ItemID] = res.ID
		})
	}
	// The consensus (which browse and agreement read) is refreshed after
	// each commit in the background: wait for it, as a reader would.
	e.app.Settle()
	return out
}

// TestReviewAuthorisation: only a researcher of the judgment's project
// reviews (checked again at every request); each annotator reads only the
// reviews of their own judgments.
func TestReviewAuthorisation(t *testing.T) {
	e := newEnv(t, 3, nil)
	ctx := context.Background()
	ids := judgeForReview(t, e)
	item := e.fx.Relevance[2] // annotator1 3, annotator2 0: disagreement
	target := ids["annotator1"][item]
	if target == 0 {
		t.Fatal("annotator1 did not judge the item")
	}
	review := api.ReviewRequest{Verdict: api.ReviewCorrect, Relevance: rel(0), Note: "The scarlet ibis does not live in the Andes."}
	path := fmt.Sprintf("/api/judgments/%d/review", target)

	a1, a2, researcher := e.login("annotator1"), e.login("annotator2"), e.login("researcher")
	var p api.Problem
	if st := a1.do("POST", path, review, &p); st != http.StatusForbidden {
		t.Errorf("annotator reviews: status %d, want 403", st)
	}
	if st := a2.do("POST", path, review, &p); st != http.StatusForbidden {
		t.Errorf("another annotator reviews: status %d, want 403", st)
	}
	if st := a1.do("GET", "/api/projects/fixture/reviews?annotator=annotator2", nil, nil); st != http.StatusForbidden {
		t.Errorf("annotator reads the review queue: status %d, want 403", st)
	}
	if st := a1.do("GET", "/api/projects/fixture/browse/items", nil, nil); st != http.StatusForbidden {
		t.Errorf("annotator browses items: status %d, want 403", st)
	}
	// A researcher outside the project is refused too.
	if _, err := e.st.CreateUser(ctx, store.NewUser{Username: "stranger", Role: api.RoleResearcher, PasswordHash: e.fx.Users["researcher"].PasswordHash}); err != nil {
		t.Fatal(err)
	}
	if st := e.login("stranger").do("POST", path, review, &p); st != http.StatusForbidden {
		t.Errorf("researcher of no project reviews: status %d, want 403", st)
	}
	var n int
	if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM judgment_reviews`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d reviews stored by refused requests (err %v)", n, err)
	}

	// Bad input names its field.
	if st := researcher.do("POST", path, api.ReviewRequest{Verdict: api.ReviewCorrect, Relevance: rel(0)}, &p); st != 400 || p.Field != "note" {
		t.Errorf("correction without a note: %d %+v, want 400 on note", st, p)
	}
	if st := researcher.do("POST", path, api.ReviewRequest{Verdict: api.ReviewCorrect, Relevance: rel(3), Note: "same"}, &p); st != 400 || p.Field != "relevance" {
		t.Errorf("correction to the same grade: %d %+v, want 400 on relevance", st, p)
	}

	var q api.ReviewQueue
	if st := researcher.do("GET", "/api/projects/fixture/reviews?annotator=annotator1", nil, &q); st != 200 {
		t.Fatalf("review queue: status %d", st)
	}
	if q.Total != 6 || len(q.Entries) != 6 || len(q.Annotators) != 2 || q.Annotators[0].Unreviewed != 6 {
		t.Fatalf("annotator1's queue before the review: %+v", q)
	}
	var res api.ReviewResult
	if st := researcher.do("POST", path, review, &res); st != 200 {
		t.Fatalf("researcher corrects: status %d", st)
	}
	if res.Review.Verdict != api.ReviewCorrect || res.Review.Original != 3 || *res.Review.Relevance != 0 || res.Review.Annotator != "annotator1" ||
		res.Consensus.Status != "adjudicated" || res.Consensus.Relevance != 0 {
		t.Fatalf("review result: %+v", res)
	}
	if st := researcher.do("GET", "/api/projects/fixture/reviews?annotator=annotator1&limit=2", nil, &q); st != 200 || q.Total != 5 || len(q.Entries) != 2 {
		t.Errorf("queue after the review: status %d, %+v", st, q)
	}

	// The annotator sees the note; the other annotator sees nothing, and
	// cannot ask for someone else's feedback.
	var fb api.Feedback
	if st := a1.do("GET", "/api/projects/fixture/feedback", nil, &fb); st != 200 {
		t.Fatalf("annotator1 feedback: status %d", st)
	}
	if fb.Total != 1 || fb.Corrections != 1 || len(fb.Entries) != 1 || fb.Entries[0].Review.Note != review.Note ||
		fb.Entries[0].Judgment.ItemID != item || fb.Entries[0].Review.Reviewer != "researcher" {
		t.Fatalf("annotator1 feedback: %+v", fb)
	}
	for _, p := range []string{"/api/projects/fixture/feedback", "/api/projects/fixture/feedback?annotator=annotator1&user=" + fmt.Sprint(a1.id)} {
		fb = api.Feedback{}
		if st := a2.do("GET", p, nil, &fb); st != 200 || fb.Total != 0 || len(fb.Entries) != 0 {
			t.Errorf("annotator2 GET %s: status %d, %+v: sees another's feedback", p, st, fb)
		}
	}
	if st := e.login("outsider").do("GET", "/api/projects/fixture/feedback", nil, nil); st != http.StatusForbidden {
		t.Errorf("annotator of another project reads this one's feedback: status %d, want 403", st)
	}

	// Access is checked again at every request: removed from the project,
	// the researcher's next review is refused.
	next := ids["annotator1"][e.fx.Relevance[3]]
	if _, err := e.st.Pool().Exec(ctx, `DELETE FROM project_members WHERE user_id = $1`, e.fx.Users["researcher"].ID); err != nil {
		t.Fatal(err)
	}
	if st := researcher.do("POST", fmt.Sprintf("/api/judgments/%d/review", next), api.ReviewRequest{Verdict: api.ReviewAccept}, &p); st != http.StatusForbidden {
		t.Errorf("researcher removed from the project reviews: status %d, want 403", st)
	}
	if st := researcher.do("GET", fmt.Sprintf("/api/items/%d/detail", item), nil, nil); st != http.StatusForbidden {
		t.Errorf("researcher removed from the project opens an item: status %d, want 403", st)
	}
}

// TestItemBrowserAPI filters the items by disagreement and opens one with
// all its judgments and reviews; bad filters name their parameter.
func TestItemBrowserAPI(t *testing.T) {
	e := newEnv(t, 3, nil)
	ids := judgeForReview(t, e)
	researcher := e.login("researcher")
	var page api.BrowseItems
	if st := researcher.do("GET", "/api/projects/fixture/browse/items?kind=relevance&agreement=disagree&limit=3", nil, &page); st != 200 {
		t.Fatalf("browse: status %d", st)
	}
	// Items 2–5 have 3 against 0.
	if page.Total != 4 || len(page.Items) != 3 || page.Items[0].ItemID != e.fx.Relevance[2] || !page.Items[0].Disagreeing ||
		len(page.Items[0].Votes) != 2 || page.Items[0].Votes[0].Annotator != "annotator1" || page.Items[0].Votes[0].Relevance != 3 {
		t.Fatalf("disagreeing items: %+v", page)
	}
	if st := researcher.do("GET", "/api/projects/fixture/browse/items?kind=relevance&agreement=disagree&limit=3&offset=3", nil, &page); st != 200 ||
		len(page.Items) != 1 || page.Items[0].ItemID != e.fx.Relevance[5] {
		t.Errorf("second page: status %d %+v", st, page)
	}
	for _, tc := range []struct{ query, field string }{
		{"limit=1000", "limit"}, {"offset=-1", "offset"}, {"label=4", "label"}, {"agreement=some", "agreement"},
		{"gold=maybe", "gold"}, {"from=27.11.2026", "from"}, {"annotator=nobody", "annotator"}, {"kind=x", "kind"}, {"query=x", "query"},
	} {
		var p api.Problem
		if st := researcher.do("GET", "/api/projects/fixture/browse/items?"+tc.query, nil, &p); st != 400 || p.Field != tc.field {
			t.Errorf("?%s: %d %+v, want 400 on %s", tc.query, st, p, tc.field)
		}
	}
	var qs api.BrowseQueries
	if st := researcher.do("GET", "/api/projects/fixture/browse/queries?text=PARIS", nil, &qs); st != 200 || qs.Total != 1 ||
		qs.Queries[0].ExtID != "q2" || qs.Queries[0].Disagreeing != 2 {
		t.Errorf("query search: status %d %+v", st, qs)
	}

	item := e.fx.Relevance[2]
	var res api.ReviewResult
	if st := researcher.do("POST", fmt.Sprintf("/api/judgments/%d/review", ids["annotator2"][item]), api.ReviewRequest{Verdict: api.ReviewAccept}, &res); st != 200 {
		t.Fatalf("accept: status %d", st)
	}
	var d api.ItemDetail
	if st := researcher.do("GET", fmt.Sprintf("/api/items/%d/detail", item), nil, &d); st != 200 {
		t.Fatalf("detail: status %d", st)
	}
	if d.ItemID != item || !d.Judged || len(d.Judgments) != 2 || len(d.Reviews) != 1 || d.Reviews[0].Verdict != api.ReviewAccept ||
		d.Reviews[0].JudgmentID != ids["annotator2"][item] || d.Document == nil || d.Document.Title != "Scarlet ibis" {
		t.Errorf("item detail: %+v", d)
	}
	var unjudged api.ItemDetail
	if st := researcher.do("GET", fmt.Sprintf("/api/items/%d/detail", e.fx.Paraphrase[0]), nil, &unjudged); st != 200 || unjudged.Judged || unjudged.Kind != api.KindParaphrase {
		t.Errorf("an unjudged item: status %d %+v", st, unjudged)
	}
}
