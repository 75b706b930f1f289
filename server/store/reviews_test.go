package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/apperr"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// reviewFixture is a judged fixture project: on items 0–2 annotator1 and
// annotator2 agree (0: both 3; 1: both 0) or disagree (2: 3 and 0); item
// 3 has one vote (annotator1, 2); the rest are unjudged. Consensus is
// refreshed for every item.
type reviewFixture struct {
	st   *store.Store
	fx   *judgingtest.Fixture
	cons *consensus.Service
	// ids of the judgments by (user, item index)
	judgment map[string]int64
	n        int
}

func newReviewFixture(t *testing.T) *reviewFixture {
	t.Helper()
	st := storetest.New(t)
	f := &reviewFixture{st: st, fx: judgingtest.New(t, st, 3), cons: consensus.NewService(st, nil), judgment: map[string]int64{}}
	f.judge(t, "annotator1", 0, 3)
	f.judge(t, "annotator2", 0, 3)
	f.judge(t, "annotator1", 1, 0)
	f.judge(t, "annotator2", 1, 0)
	f.judge(t, "annotator1", 2, 3)
	f.judge(t, "annotator2", 2, 0)
	f.judge(t, "annotator1", 3, 2)
	return f
}

func (f *reviewFixture) judge(t *testing.T, user string, item int, label int16) int64 {
	t.Helper()
	ctx := context.Background()
	f.n++
	ev := api.EvidencePartial
	j, _, err := f.st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", f.n), ItemID: f.fx.Relevance[item],
		UserID: f.fx.Users[user].ID, ProjectID: f.fx.Project.ID, Kind: api.KindRelevance, Relevance: &label, Evidence: &ev})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.cons.Refresh(ctx, f.fx.Relevance[item]); err != nil {
		t.Fatal(err)
	}
	f.judgment[fmt.Sprint(user, item)] = j.ID
	return j.ID
}

func TestReviewStoredAsOwnRow(t *testing.T) {
	ctx := context.Background()
	f := newReviewFixture(t)
	st, fx := f.st, f.fx
	researcher := fx.Users["researcher"].ID
	a1, a2 := fx.Users["annotator1"].ID, fx.Users["annotator2"].ID

	counts, err := st.ReviewCounts(ctx, fx.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.AnnotatorReviewCounts{
		{AnnotatorID: a1, Annotator: "annotator1", Judged: 4, Unreviewed: 4},
		{AnnotatorID: a2, Annotator: "annotator2", Judged: 3, Unreviewed: 3},
	}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("counts before any review:\n got %v\nwant %v", counts, want)
	}

	// Accept annotator1's judgment of item 0; correct their item 2 (3 → 0).
	acc, err := st.AddReview(ctx, store.NewReview{JudgmentID: f.judgment["annotator10"], ReviewerID: researcher, Verdict: store.VerdictAccept})
	if err != nil {
		t.Fatal(err)
	}
	if acc.Verdict != "accept" || acc.Original != 3 || acc.Relevance != nil || acc.AdjudicationID != nil || !acc.Current ||
		acc.Annotator != "annotator1" || acc.Reviewer != "researcher" || acc.ItemID != fx.Relevance[0] {
		t.Fatalf("accept review: %+v", acc)
	}
	zero := int16(0)
	corr, err := st.AddReview(ctx, store.NewReview{JudgmentID: f.judgment["annotator12"], ReviewerID: researcher, Verdict: store.VerdictCorrect,
		Relevance: &zero, Note: "The scarlet ibis is not of the Andes.", AdjudicationNote: "correction"})
	if err != nil {
		t.Fatal(err)
	}
	if corr.Verdict != "correct" || corr.Original != 3 || corr.Relevance == nil || *corr.Relevance != 0 || corr.AdjudicationID == nil {
		t.Fatalf("correct review: %+v", corr)
	}
	// The judgment itself is unchanged; the correction is an adjudication.
	js, err := st.CurrentJudgments(ctx, fx.Relevance[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.UserID == a1 && (j.ID != f.judgment["annotator12"] || *j.Relevance != 3) {
			t.Errorf("the corrected judgment changed: %+v", j)
		}
	}
	adjs, err := st.AdjudicationsOf(ctx, fx.Relevance[2])
	if err != nil {
		t.Fatal(err)
	}
	if len(adjs) != 1 || adjs[0].ID != *corr.AdjudicationID || adjs[0].Relevance != 0 || adjs[0].UserID != researcher {
		t.Fatalf("adjudications of the corrected item: %+v", adjs)
	}
	var audits int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action IN ('review.accept', 'review.correct')`).Scan(&audits); err != nil {
		t.Fatal(err)
	}
	if audits != 2 {
		t.Errorf("%d review audit entries, want 2", audits)
	}

	counts, err = st.ReviewCounts(ctx, fx.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	want[0].Unreviewed, want[0].Accepted, want[0].Corrected = 2, 1, 1
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("counts after two reviews:\n got %v\nwant %v", counts, want)
	}
	queue, total, err := st.ReviewQueue(ctx, fx.Project.ID, a1, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || len(queue) != 2 || queue[0].JudgmentID != f.judgment["annotator11"] || queue[1].JudgmentID != f.judgment["annotator13"] ||
		queue[1].Grade != 2 || queue[1].QueryExtID != "q1" || queue[1].DocTitle != "Hoatzin" || queue[1].Annotator != "annotator1" {
		t.Fatalf("annotator1's queue (total %d): %+v", total, queue)
	}
	page2, total, err := st.ReviewQueue(ctx, fx.Project.ID, a1, 1, 1)
	if err != nil || total != 2 || len(page2) != 1 || page2[0].JudgmentID != f.judgment["annotator13"] {
		t.Fatalf("second page of one: %+v total %d err %v", page2, total, err)
	}

	// Each annotator reads only the reviews of their own judgments.
	fb, c, err := st.Feedback(ctx, a1, fx.Project.ID, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 2 || c.Corrections != 1 || len(fb) != 2 || fb[0].ReviewRow.ID != corr.ID || fb[0].Note != "The scarlet ibis is not of the Andes." ||
		fb[0].DocTitle != "Scarlet ibis" || fb[1].ReviewRow.ID != acc.ID {
		t.Fatalf("annotator1's feedback %+v: %+v", c, fb)
	}
	fb, c, err = st.Feedback(ctx, a2, fx.Project.ID, 50, 0)
	if err != nil || c.Total != 0 || len(fb) != 0 {
		t.Fatalf("annotator2 sees feedback %+v %+v (err %v)", c, fb, err)
	}

	// Judged again: the review stays with the old judgment (no longer
	// current), and the new judgment is back in the queue.
	f.judge(t, "annotator1", 2, 1)
	fb, _, err = st.Feedback(ctx, a1, fx.Project.ID, 50, 0)
	if err != nil || fb[0].Current {
		t.Fatalf("feedback on a replaced judgment says current (err %v): %+v", err, fb[0].ReviewRow)
	}
	if _, total, _ = st.ReviewQueue(ctx, fx.Project.ID, a1, 50, 0); total != 3 {
		t.Errorf("queue after judging again: %d, want 3", total)
	}
}

func TestReviewRefusals(t *testing.T) {
	ctx := context.Background()
	f := newReviewFixture(t)
	st, fx := f.st, f.fx
	researcher := fx.Users["researcher"].ID
	three := int16(3)
	old := f.judgment["annotator22"]
	f.judge(t, "annotator2", 2, 1)
	own := f.judge(t, "researcher", 4, 1)
	cases := []struct {
		name string
		n    store.NewReview
		want error
	}{
		{"replaced judgment", store.NewReview{JudgmentID: old, ReviewerID: researcher, Verdict: store.VerdictAccept}, store.ErrConflict},
		{"own judgment", store.NewReview{JudgmentID: own, ReviewerID: researcher, Verdict: store.VerdictAccept}, apperr.ErrForbidden},
		{"same grade", store.NewReview{JudgmentID: f.judgment["annotator10"], ReviewerID: researcher, Verdict: store.VerdictCorrect, Relevance: &three}, nil},
		{"bad verdict", store.NewReview{JudgmentID: f.judgment["annotator10"], ReviewerID: researcher, Verdict: "maybe"}, nil},
		{"no judgment", store.NewReview{JudgmentID: 1 << 40, ReviewerID: researcher, Verdict: store.VerdictAccept}, store.ErrNotFound},
	}
	for _, tc := range cases {
		_, err := st.AddReview(ctx, tc.n)
		var inv *apperr.Invalid
		switch {
		case err == nil:
			t.Errorf("%s: stored", tc.name)
		case tc.want == nil && !errors.As(err, &inv):
			t.Errorf("%s: %v, want an *apperr.Invalid", tc.name, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM judgment_reviews`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d reviews stored by refused requests (err %v)", n, err)
	}
}

func TestBrowseItemsFilters(t *testing.T) {
	ctx := context.Background()
	f := newReviewFixture(t)
	st, fx := f.st, f.fx
	rel := fx.Relevance
	ids := func(name string, flt store.BrowseFilter) []int64 {
		t.Helper()
		if flt.Limit == 0 {
			flt.Limit = 50
		}
		rows, total, err := st.BrowseItems(ctx, fx.Project.ID, flt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := []int64{}
		for _, r := range rows {
			out = append(out, r.ItemID)
		}
		if flt.Offset == 0 && total != len(out) {
			t.Errorf("%s: total %d for %d rows", name, total, len(out))
		}
		return out
	}
	check := func(name string, flt store.BrowseFilter, want ...int64) {
		t.Helper()
		if want == nil {
			want = []int64{}
		}
		if got := ids(name, flt); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: items %v, want %v", name, got, want)
		}
	}
	yes := true
	all := store.BrowseFilter{Label: -1, Kind: api.KindRelevance, Limit: 50}
	with := func(mod func(*store.BrowseFilter)) store.BrowseFilter { x := all; mod(&x); return x }
	check("all relevance items", all, rel...)
	check("disagree", with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementDisagree }), rel[2])
	check("agree", with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementAgree }), rel[0], rel[1])
	check("single", with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementSingle }), rel[3])
	check("unjudged", with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementUnjudged }), rel[4:]...)
	check("label 0 by annotator2", with(func(x *store.BrowseFilter) { x.Label, x.AnnotatorID = 0, fx.Users["annotator2"].ID }), rel[1], rel[2])
	check("label 2", with(func(x *store.BrowseFilter) { x.Label = 2 }), rel[3])
	check("text: document title", with(func(x *store.BrowseFilter) { x.Text = "IBIS" }), rel[2])
	check("text: query text", with(func(x *store.BrowseFilter) { x.Text = "films set in" }), rel[4], rel[5])
	check("text: like characters are literal", with(func(x *store.BrowseFilter) { x.Text = "%" }))
	check("query", with(func(x *store.BrowseFilter) { x.QueryID = fx.Queries["q2"] }), rel[4], rel[5])
	check("gold", with(func(x *store.BrowseFilter) { x.Gold = &yes }))
	tomorrow := time.Now().Add(24 * time.Hour)
	check("judged from tomorrow", with(func(x *store.BrowseFilter) { x.From = &tomorrow }))
	check("judged before tomorrow", with(func(x *store.BrowseFilter) { x.To = &tomorrow }), rel[:4]...)
	check("page 2 of 2", with(func(x *store.BrowseFilter) { x.Limit, x.Offset = 2, 2 }), rel[2], rel[3])
	check("any kind has the paraphrase items too", store.BrowseFilter{Label: -1, Text: "Paris", Limit: 50}, rel[4], rel[5], fx.Paraphrase[1])

	rows, _, err := st.BrowseItems(ctx, fx.Project.ID, with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementDisagree }))
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if fmt.Sprint(r.Annotators, r.Grades) != "[annotator1 annotator2] [3 0]" || r.Status == nil || *r.Status != "tie" ||
		r.QueryExtID != "q1" || r.DocTitle != "Scarlet ibis" || r.LastJudged == nil {
		t.Errorf("disagreeing row: %+v", r)
	}

	// An adjudicated item (a correction) is found as such.
	zero := int16(0)
	if _, err := f.cons.Review(ctx, fx.Users["researcher"].ID, f.judgment["annotator12"],
		consensus.ReviewRequest{Verdict: api.ReviewCorrect, Relevance: ptr(int(zero)), Note: "not Andean"}); err != nil {
		t.Fatal(err)
	}
	check("adjudicated", with(func(x *store.BrowseFilter) { x.Agreement = store.AgreementAdjudicated }), rel[2])

	qs, total, err := st.BrowseQueries(ctx, fx.Project.ID, "andes", 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(qs) != 1 || qs[0].ExtID != "q1" || qs[0].Items != 4 || qs[0].Judged != 4 || qs[0].Disagreeing != 1 {
		t.Errorf("query search 'andes': total %d %+v", total, qs)
	}
	qs, total, err = st.BrowseQueries(ctx, fx.Project.ID, "", 1, 1)
	if err != nil || total != 2 || len(qs) != 1 || qs[0].ExtID != "q2" || qs[0].Judged != 0 {
		t.Errorf("second page of all queries: total %d %+v err %v", total, qs, err)
	}
}

func ptr[T any](v T) *T { return &v }
