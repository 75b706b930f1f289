package consensus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// burstState builds, in a fresh database, one item in each state a
// refresh can meet: no judgments; judged, no stored row; stored and
// unchanged since; stored, then judged again; stored, then its only vote
// withdrawn by a skip (the row is cleared); judged and adjudicated. It
// returns the store, the fixture and the ids to refresh (with a
// paraphrase item and an id that does not exist).
func burstState(t *testing.T) (*store.Store, *judgingtest.Fixture, []int64) {
	t.Helper()
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	n := 0
	judge := func(item int64, user string, label int16, skip string) {
		t.Helper()
		n++
		nj := store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, SkipReason: skip}
		if skip == "" {
			ev := vocab.EvidencePartial
			nj.Relevance, nj.Evidence = &label, &ev
		}
		if _, _, err := st.SaveJudgment(ctx, nj); err != nil {
			t.Fatal(err)
		}
	}
	refresh := func(item int64) {
		t.Helper()
		if _, err := svc.Refresh(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	r := fx.Relevance
	if len(r) < 6 {
		t.Fatalf("fixture has %d relevance items, want 6", len(r))
	}
	// r[0]: nothing. r[1]: judged, never refreshed.
	judge(r[1], "annotator1", 3, "")
	judge(r[1], "annotator2", 1, "")
	// r[2]: refreshed, nothing new.
	judge(r[2], "annotator1", 2, "")
	refresh(r[2])
	// r[3]: refreshed, then a second vote.
	judge(r[3], "annotator1", 2, "")
	refresh(r[3])
	judge(r[3], "annotator3", 0, "")
	// r[4]: refreshed, then its only rater skips it instead.
	judge(r[4], "annotator2", 3, "")
	refresh(r[4])
	judge(r[4], "annotator2", 0, "cannot read the document")
	// r[5]: judged and adjudicated (never refreshed since).
	judge(r[5], "annotator1", 0, "")
	if _, err := st.AddAdjudication(ctx, r[5], fx.Users["researcher"].ID, 2, "in the Andes"); err != nil {
		t.Fatal(err)
	}
	ids := append([]int64{fx.Paraphrase[0], 1 << 40}, r[:6]...)
	return st, fx, ids
}

// storedConsensus is what a refresh leaves in the database: the rows
// (without their times) and the consensus audit entries, per item.
type storedConsensus struct {
	Rows   map[int64]string
	Audits map[string][]string
}

func readStored(t *testing.T, st *store.Store) storedConsensus {
	t.Helper()
	ctx := context.Background()
	out := storedConsensus{Rows: map[int64]string{}, Audits: map[string][]string{}}
	rows, err := st.Pool().Query(ctx, `SELECT item_id, project_id, query_id, relevance, status, votes, relevant_votes,
		contradictions, needs_adjudication, adjudication_id FROM consensus ORDER BY item_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var item, project, query int64
		var rel int16
		var status string
		var votes, relVotes, contra int
		var needs bool
		var adj *int64
		if err := rows.Scan(&item, &project, &query, &rel, &status, &votes, &relVotes, &contra, &needs, &adj); err != nil {
			t.Fatal(err)
		}
		out.Rows[item] = fmt.Sprint(project, query, rel, status, votes, relVotes, contra, needs, adj != nil)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = st.Pool().Query(ctx, `SELECT entity_id, action, user_id IS NULL, project_id, detail::text FROM audit_log
		WHERE action LIKE 'consensus.%' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var entity, action, detail string
		var noUser bool
		var project int64
		if err := rows.Scan(&entity, &action, &noUser, &project, &detail); err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(detail), &d); err != nil {
			t.Fatal(err)
		}
		if old, ok := d["old"].(map[string]any); ok {
			delete(old, "UpdatedAt") // a cleared row's whole old row: its time differs
		}
		norm, _ := json.Marshal(d)
		out.Audits[entity] = append(out.Audits[entity], fmt.Sprint(action, " ", noUser, " ", project, " ", string(norm)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// batchRecorder records what a BatchListener is told.
type batchRecorder struct {
	calls   int
	changes []consensus.Change
	single  int
}

func (b *batchRecorder) ConsensusChanged(context.Context, int64, int64, consensus.Refreshed) {
	b.single++
}
func (b *batchRecorder) ConsensusChangedMany(_ context.Context, cs []consensus.Change) {
	b.calls++
	b.changes = append(b.changes, cs...)
}

// TestItemsChangedAsOneByOne: a burst refreshed in one transaction
// (ItemsChanged, store.RefreshConsensusMany) stores the same rows and the
// same audit entries as the items refreshed one by one, and tells the
// listeners the same outcomes (a per-item listener item by item, a batch
// listener once); the paraphrase item and the missing id are skipped.
func TestItemsChangedAsOneByOne(t *testing.T) {
	ctx := context.Background()

	stA, fxA, idsA := burstState(t)
	svcA := consensus.NewService(stA, nil)
	recA := &recorder{last: map[int64]consensus.Refreshed{}}
	svcA.AddItemListener(recA)
	for _, id := range fxA.Relevance[:6] {
		if err := svcA.ItemChanged(ctx, fxA.Project.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svcA.Refresh(ctx, idsA[1]); err == nil {
		t.Fatal("refresh of a missing item: no error")
	}

	stB, fxB, idsB := burstState(t)
	svcB := consensus.NewService(stB, nil)
	recB := &recorder{last: map[int64]consensus.Refreshed{}}
	batch := &batchRecorder{}
	svcB.AddItemListener(recB)
	svcB.AddItemListener(batch)
	if err := svcB.ItemsChanged(ctx, idsB); err != nil {
		t.Fatal(err)
	}

	a, b := readStored(t, stA), readStored(t, stB)
	if len(a.Rows) != 4 {
		t.Errorf("one by one: %d consensus rows, want 4 (r1, r2, r3, r5): %v", len(a.Rows), a.Rows)
	}
	if !reflect.DeepEqual(a.Rows, b.Rows) {
		t.Errorf("consensus rows differ:\none by one %v\nburst      %v", a.Rows, b.Rows)
	}
	if !reflect.DeepEqual(a.Audits, b.Audits) {
		t.Errorf("audit entries differ:\none by one %v\nburst      %v", a.Audits, b.Audits)
	}
	if got := b.Audits[fmt.Sprint(fxB.Relevance[4])]; len(got) != 2 || !strings.HasPrefix(got[1], "consensus.clear") {
		t.Errorf("the withdrawn vote's item: audit %v, want an update then a clear", got)
	}

	if batch.calls != 1 || batch.single != 0 {
		t.Errorf("batch listener: %d batch calls and %d single ones, want 1 and 0", batch.calls, batch.single)
	}
	var told []int64
	for _, c := range batch.changes {
		told = append(told, c.ItemID)
		if c.ProjectID != fxB.Project.ID {
			t.Errorf("item %d told with project %d, want %d", c.ItemID, c.ProjectID, fxB.Project.ID)
		}
	}
	if want := fxB.Relevance[:6]; !sort.SliceIsSorted(told, func(i, j int) bool { return told[i] < told[j] }) || !reflect.DeepEqual(sortedCopy(told), sortedCopy(want)) {
		t.Errorf("batch listener told items %v, want %v in item order", told, want)
	}
	for i := range 6 {
		ra, rb := recA.last[fxA.Relevance[i]], recB.last[fxB.Relevance[i]]
		if ra.OK != rb.OK || ra.Changed != rb.Changed || !reflect.DeepEqual(ra.Votes, rb.Votes) ||
			(ra.Adj == nil) != (rb.Adj == nil) || ra.Row.Status != rb.Row.Status || ra.Row.Relevance != rb.Row.Relevance ||
			ra.Row.Votes != rb.Row.Votes || ra.Row.ItemID != rb.Row.ItemID || (ra.Row.UpdatedAt.IsZero() != rb.Row.UpdatedAt.IsZero()) {
			t.Errorf("item r%d: one by one told %+v, burst told %+v", i, ra, rb)
		}
	}
	if got := recB.last[fxB.Relevance[2]]; !got.OK || got.Changed {
		t.Errorf("the unchanged item: told %+v, want OK and not changed", got)
	}
	if got := recB.last[fxB.Relevance[4]]; got.OK || !got.Changed {
		t.Errorf("the cleared item: told %+v, want not OK and changed", got)
	}
	staleA, errA := stA.ConsensusStale(ctx, fxA.Project.ID)
	staleB, errB := stB.ConsensusStale(ctx, fxB.Project.ID)
	if errA != nil || errB != nil || staleA || staleB {
		t.Errorf("stale after the refreshes: one by one %v (%v), burst %v (%v)", staleA, errA, staleB, errB)
	}
	// A second burst finds nothing to change and audits nothing more.
	if err := svcB.ItemsChanged(ctx, idsB); err != nil {
		t.Fatal(err)
	}
	if again := readStored(t, stB); !reflect.DeepEqual(again, b) {
		t.Errorf("a burst without news changed the stored consensus:\nbefore %v\nafter  %v", b, again)
	}
	tooMany := make([]int64, store.MaxConsensusBatch+1)
	for i := range tooMany {
		tooMany[i] = int64(i + 1)
	}
	if _, err := stB.RefreshConsensusMany(ctx, tooMany, nil); err == nil {
		t.Errorf("a burst of %d items was accepted", store.MaxConsensusBatch+1)
	}
}

func sortedCopy(xs []int64) []int64 {
	out := append([]int64(nil), xs...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// TestStaleAfterWithdrawnVote: a rater who judged an item and then skipped
// it withdrew their vote. Until the item is refreshed its stored row still
// counts the vote, so the project is stale; once refreshed (the row is
// cleared) it is not — before, the withdrawn vote made it stale for good.
func TestStaleAfterWithdrawnVote(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	item := fx.Relevance[0]
	stale := func() bool {
		t.Helper()
		s, err := st.ConsensusStale(ctx, fx.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	label, ev := int16(3), vocab.EvidenceComplete
	save := func(n int, nj store.NewJudgment) {
		t.Helper()
		nj.ClientID = fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		nj.ItemID, nj.UserID, nj.ProjectID, nj.Kind = item, fx.Users["annotator1"].ID, fx.Project.ID, vocab.KindRelevance
		if _, _, err := st.SaveJudgment(ctx, nj); err != nil {
			t.Fatal(err)
		}
	}
	save(1, store.NewJudgment{Relevance: &label, Evidence: &ev})
	if !stale() {
		t.Fatal("a vote without its refresh: not stale")
	}
	if err := svc.ItemChanged(ctx, fx.Project.ID, item); err != nil {
		t.Fatal(err)
	}
	if stale() {
		t.Fatal("stale after the refresh")
	}
	save(2, store.NewJudgment{SkipReason: "not sure after all"})
	if !stale() {
		t.Error("the vote withdrawn, its refresh lost (the row still counts it): not stale")
	}
	if err := svc.ItemChanged(ctx, fx.Project.ID, item); err != nil {
		t.Fatal(err)
	}
	if row, err := st.ConsensusOf(ctx, item); err == nil {
		t.Errorf("the withdrawn vote's row is still there: %+v", row)
	}
	if stale() {
		t.Error("stale for good after the withdrawn vote's refresh")
	}
}
