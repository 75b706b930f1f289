package export_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/export"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestConsensusQrelsDawidSkene: raters 1 and 2 call every gold
// not-relevant document relevant, rater 3 gets them right. On the
// fixture's regular items the same split (1 and 2 relevant, 3 not) is a
// relevant majority, but Dawid–Skene, which learnt from the gold items
// that 1 and 2 say relevant regardless, follows rater 3. The default
// (and "majority") export is unchanged; an unknown method is an error.
func TestConsensusQrelsDawidSkene(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	var gold []int64
	for _, q := range []string{"q1", "q2"} {
		for _, d := range []string{"d1", "d2", "d3", "d4", "d5", "d6"} {
			doc := fx.Documents[d]
			it, err := st.CreateItem(ctx, store.NewItem{ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, QueryID: fx.Queries[q],
				DocumentID: &doc, IsGold: true, GoldAnswer: []byte(`{"relevance": 0}`)})
			if err != nil {
				continue // the fixture's own item for this pair
			}
			gold = append(gold, it.ID)
		}
	}
	if len(gold) != 6 {
		t.Fatalf("%d gold items, want 6", len(gold))
	}
	raters := []int64{fx.Users["annotator1"].ID, fx.Users["annotator2"].ID, fx.Users["annotator3"].ID}
	n := 0
	judge := func(item, user int64, grade int16) {
		t.Helper()
		n++
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: user, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &grade}); err != nil {
			t.Fatal(err)
		}
	}
	for _, item := range append(append([]int64{}, gold...), fx.Relevance...) {
		judge(item, raters[0], 3)
		judge(item, raters[1], 2)
		judge(item, raters[2], 0)
	}
	write := func(method string) (string, error) {
		var b bytes.Buffer
		_, err := export.Write(ctx, st, fx.Project.ID, "qrels-consensus", &b, export.Options{Consensus: method})
		return b.String(), err
	}
	def, err := write("")
	if err != nil {
		t.Fatal(err)
	}
	maj, err := write("majority")
	if err != nil || maj != def {
		t.Fatalf("majority export differs from the default (%v)", err)
	}
	ds, err := write("dawid-skene")
	if err != nil {
		t.Fatal(err)
	}
	majLines, dsLines := strings.Split(strings.TrimSpace(maj), "\n"), strings.Split(strings.TrimSpace(ds), "\n")
	if len(majLines) != 12 || len(dsLines) != 12 {
		t.Fatalf("%d majority and %d DS qrels, want 12 each", len(majLines), len(dsLines))
	}
	isGold := map[string]bool{}
	for _, id := range gold {
		it, _ := st.ItemByID(ctx, id)
		q, _ := st.QueryByID(ctx, it.QueryID)
		d, _ := st.DocumentByID(ctx, *it.DocumentID)
		isGold[q.ExtID+" "+d.ExtID] = true
	}
	for i := range majLines {
		m, d := strings.Fields(majLines[i]), strings.Fields(dsLines[i])
		if m[0] != d[0] || m[2] != d[2] {
			t.Fatalf("line %d: %q vs %q: not the same items in the same order", i, majLines[i], dsLines[i])
		}
		// Majority: sorted 0,2,3 → lower median 2 (relevant). DS: not
		// relevant, the median of the not-relevant side: 0.
		if m[3] != "2" || d[3] != "0" {
			t.Errorf("%s %s: majority %s, dawid-skene %s; want 2 and 0", m[0], m[2], m[3], d[3])
		}
	}
	if _, err := write("median"); err == nil {
		t.Error("unknown consensus method accepted")
	}
}
