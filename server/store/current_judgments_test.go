package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestCurrentJudgmentsOfItemsAsView: the consensus refresh reads each
// rater's current judgments of some items from judgments alone
// (CurrentJudgmentsOfItems, CurrentJudgmentsOfItem); they are the
// current_judgments view's rows for those items, whatever the history:
// a vote replaced by a later vote, a vote withdrawn by a skip, a skip
// replaced by a vote, several raters, an item nobody judged.
func TestCurrentJudgmentsOfItemsAsView(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	items := fx.Relevance[:4]
	raters := []int64{fx.Users["annotator1"].ID, fx.Users["annotator2"].ID, fx.Users["annotator3"].ID}
	n := 0
	judge := func(item, user int64, rel int16, skip string) {
		t.Helper()
		n++
		j := store.NewJudgment{ClientID: fmt.Sprintf("5b0c3a52-1f6e-4c1d-9a7b-%012d", n), ItemID: item, UserID: user, ProjectID: fx.Project.ID,
			Kind: vocab.KindRelevance, SkipReason: skip}
		if skip == "" {
			ev := vocab.EvidencePartial
			j.Relevance, j.Evidence = &rel, &ev
		}
		if _, _, err := st.SaveJudgment(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	judge(items[0], raters[0], 1, "")
	judge(items[0], raters[0], 3, "")         // replaces the 1
	judge(items[0], raters[1], 2, "")         // a second rater
	judge(items[1], raters[0], 2, "")         //
	judge(items[1], raters[0], 0, "unsure")   // withdrawn by a skip
	judge(items[1], raters[2], 0, "")         //
	judge(items[2], raters[1], 0, "too long") // a skip …
	judge(items[2], raters[1], 2, "")         // … replaced by a vote
	// items[3]: nobody judged it.

	ids := func(sql string, arg any) []int64 {
		t.Helper()
		rows, _ := st.Pool().Query(ctx, sql, arg)
		got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	view := ids(`SELECT id FROM current_judgments WHERE item_id = ANY ($1::bigint[]) ORDER BY id`, items)
	if len(view) != 4 {
		t.Fatalf("the view holds %d current judgments of the items, want 4", len(view))
	}
	if got := ids(`SELECT id FROM `+store.CurrentJudgmentsOfItems+` l ORDER BY id`, items); !reflect.DeepEqual(got, view) {
		t.Errorf("CurrentJudgmentsOfItems: %v, the view: %v", got, view)
	}
	for _, item := range items {
		want := ids(`SELECT id FROM current_judgments WHERE item_id = $1 ORDER BY id`, item)
		if got := ids(`SELECT id FROM `+store.CurrentJudgmentsOfItem+` l ORDER BY id`, item); !reflect.DeepEqual(got, want) {
			t.Errorf("CurrentJudgmentsOfItem(%d): %v, the view: %v", item, got, want)
		}
	}
}
