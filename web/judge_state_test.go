package web

import (
	"testing"
	"time"

	"boolpool/api"
)

func TestDraftsSurviveAReloadPerUser(t *testing.T) {
	st := memStorage{}
	d := LoadDrafts(st, 7)
	d.Put(42, Draft{Relevance: 2, Evidence: api.EvidencePartial, Comment: "half", Attributions: map[string][]int{"0": {1}}, SavedAt: time.Now()})
	d.Put(43, Draft{Relevance: -1}) // empty: not kept
	if _, ok := LoadDrafts(st, 7).Get(42); ok {
		t.Error("a draft was stored before Flush (a key press waits for no write)")
	}
	d.Flush()
	again := LoadDrafts(st, 7)
	got, ok := again.Get(42)
	if !ok || got.Relevance != 2 || got.Comment != "half" || len(got.Attributions["0"]) != 1 {
		t.Fatalf("draft after reload: %+v %v", got, ok)
	}
	if _, ok := again.Get(43); ok {
		t.Error("an empty draft was kept")
	}
	if _, ok := LoadDrafts(st, 8).Get(42); ok {
		t.Error("another user sees the draft")
	}
	again.Delete(42)
	again.Flush()
	if _, ok := LoadDrafts(st, 7).Get(42); ok {
		t.Error("a deleted draft came back")
	}
	for i := range draftMax + 5 {
		again.Put(int64(100+i), Draft{Relevance: 1, SavedAt: time.Unix(int64(i), 0)})
	}
	again.Flush()
	if n := len(LoadDrafts(st, 7).m); n != draftMax {
		t.Errorf("%d drafts kept, want at most %d", n, draftMax)
	}
	if _, ok := LoadDrafts(st, 7).Get(100); ok {
		t.Error("the oldest draft was kept over the limit")
	}
}

func TestHistoryMostRecentFirstOncePerItem(t *testing.T) {
	rel := func(r int) *int { return &r }
	var hs []HistoryEntry
	for _, id := range []int64{1, 2, 3, 2} {
		hs = PushHistory(hs, HistoryEntry{Req: api.JudgmentRequest{ItemID: id, Kind: api.KindRelevance, Relevance: rel(int(id)), Evidence: api.EvidenceNone}})
	}
	if len(hs) != 3 || hs[0].Req.ItemID != 2 || hs[1].Req.ItemID != 3 || hs[2].Req.ItemID != 1 {
		t.Fatalf("history %+v", hs)
	}
	st := memStorage{}
	SaveHistory(st, 7, "p", api.KindRelevance, hs)
	if got := LoadHistory(st, 7, "p", api.KindRelevance); len(got) != 3 || LoadHistory(st, 8, "p", api.KindRelevance) != nil {
		t.Errorf("stored history: %+v", got)
	}
	// The writer encodes each entry once and stores the same array.
	var w HistoryWriter
	w.Save(st, 7, "p", api.KindRelevance, hs)
	hs = PushHistory(hs, HistoryEntry{Req: api.JudgmentRequest{ClientID: "c4", ItemID: 4, Kind: api.KindRelevance, Relevance: rel(0), Evidence: api.EvidenceNone}, Item: "q · d"})
	w.Save(st, 7, "p", api.KindRelevance, hs)
	if got := LoadHistory(st, 7, "p", api.KindRelevance); len(got) != 4 || got[0].Req.ClientID != "c4" || got[0].Item != "q · d" || got[3].Req.ItemID != 1 || *got[0].Req.Relevance != 0 {
		t.Errorf("history stored by the writer: %+v", got)
	}
	if got := HistoryLabel(hs[1].Req); got != "2 likely relevant · no evidence" {
		t.Errorf("label %q", got)
	}
	if got := HistoryLabel(api.JudgmentRequest{SkipReason: "German"}); got != "skipped: German" {
		t.Errorf("skip label %q", got)
	}
}

func TestFirstVisitOncePerUserProjectAndKind(t *testing.T) {
	st := memStorage{}
	if !FirstVisit(st, 7, "p", api.KindRelevance) || FirstVisit(st, 7, "p", api.KindRelevance) {
		t.Error("relevance: first visit not exactly once")
	}
	if !FirstVisit(st, 7, "p", api.KindParaphrase) || !FirstVisit(st, 8, "p", api.KindRelevance) {
		t.Error("another kind or user is a first visit of its own")
	}
	// Each project has instructions of its own: seen in p is not seen in q.
	if !FirstVisit(st, 7, "q", api.KindRelevance) || FirstVisit(st, 7, "q", api.KindRelevance) {
		t.Error("another project is a first visit of its own, once")
	}
}

// The history is kept per account and project: judging in q does not list
// p's items, and the keys of two projects differ.
func TestHistoryPerProject(t *testing.T) {
	st := memStorage{}
	rel := 2
	hs := PushHistory(nil, HistoryEntry{Req: api.JudgmentRequest{ClientID: "c1", ItemID: 1, Kind: api.KindRelevance, Relevance: &rel, Evidence: api.EvidenceNone}})
	SaveHistory(st, 7, "p", api.KindRelevance, hs)
	if got := LoadHistory(st, 7, "q", api.KindRelevance); got != nil {
		t.Errorf("project q lists p's history: %+v", got)
	}
	if got := LoadHistory(st, 7, "p", api.KindRelevance); len(got) != 1 || got[0].Req.ItemID != 1 {
		t.Errorf("project p's history: %+v", got)
	}
	if a, b := historyKey(7, "p", api.KindRelevance), historyKey(7, "q", api.KindRelevance); a == b || seenKey(7, "p", api.KindRelevance) == seenKey(7, "q", api.KindRelevance) {
		t.Errorf("keys of two projects are the same: %s %s", a, b)
	}
}

func TestGradeKeysAreTheGrades(t *testing.T) {
	for k, want := range map[string]int{"0": 0, "1": 1, "2": 2, "3": 3} {
		if g, ok := gradeOf(k); !ok || g != want {
			t.Errorf("key %s: %d %v", k, g, ok)
		}
	}
	for _, k := range []string{"4", "a", "", "10"} {
		if _, ok := gradeOf(k); ok {
			t.Errorf("key %q gives a grade", k)
		}
	}
}

func TestHistoryListHTMLEscapesText(t *testing.T) {
	rel := 2
	got := historyListHTML([]HistoryEntry{
		{Req: api.JudgmentRequest{ItemID: 5, Relevance: &rel, Evidence: api.EvidenceNone}, Item: `<img src=x onerror="alert(1)"> · d`},
		{Req: api.JudgmentRequest{ItemID: 3, SkipReason: "<b>German</b>"}},
	}, 3, nil)
	want := `<ol class="history-list">` +
		`<li data-item="5"><button type="button" class="link history-open" data-item="5">Item 5</button> <span class="history-label">2 likely relevant · no evidence</span>` +
		`<span class="history-what" title="&lt;img src=x onerror=&#34;alert(1)&#34;&gt; · d">&lt;img src=x onerror=&#34;alert(1)&#34;&gt; · d</span></li>` +
		`<li data-item="3" class="revisiting" aria-current="true"><button type="button" class="link history-open" data-item="3">Item 3</button> <span class="history-label">skipped: &lt;b&gt;German&lt;/b&gt;</span></li>` +
		`</ol>`
	if got != want {
		t.Errorf("history list\n got %s\nwant %s", got, want)
	}
	if got := historyListHTML(nil, 0, nil); got != `<ol class="history-list"></ol>` {
		t.Errorf("empty history list: %s", got)
	}
}

// TestHistoryListShowsReviewNote: a researcher's correction of an item in
// the history is shown under it with its note, escaped; an item without a
// review shows none.
func TestHistoryListShowsReviewNote(t *testing.T) {
	two, zero := 2, 0
	got := historyListHTML([]HistoryEntry{
		{Req: api.JudgmentRequest{ItemID: 5, Relevance: &two, Evidence: api.EvidenceNone}},
		{Req: api.JudgmentRequest{ItemID: 4, Relevance: &two, Evidence: api.EvidenceNone}},
	}, 0, map[int64]api.Review{5: {ID: 9, Verdict: api.ReviewCorrect, Relevance: &zero, Reviewer: "researcher",
		Note: "Not in the <Andes>", Current: true}})
	want := `<ol class="history-list">` +
		`<li data-item="5"><button type="button" class="link history-open" data-item="5">Item 5</button> <span class="history-label">2 likely relevant · no evidence</span>` +
		`<div class="history-review review-correct" data-review="9"><strong>Corrected to 0 definitely not relevant by researcher</strong> ` +
		`<q class="review-note">Not in the &lt;Andes&gt;</q></div></li>` +
		`<li data-item="4"><button type="button" class="link history-open" data-item="4">Item 4</button> <span class="history-label">2 likely relevant · no evidence</span></li>` +
		`</ol>`
	if got != want {
		t.Errorf("history list\n got %s\nwant %s", got, want)
	}
}
