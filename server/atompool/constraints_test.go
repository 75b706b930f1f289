package atompool_test

import (
	"boolpool/server/atompool"
	"boolpool/server/atoms"
	"boolpool/server/vocab"
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/apperr"
	"boolpool/server/consensus"
	"boolpool/server/export"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// constraintTruth is what the fixture's documents say about each atom.
var constraintTruth = map[string]map[string]string{
	"Birds of the Venezuelan Andes": {"d1": "yes", "d2": "yes", "d3": "no", "d4": "no"},
	"birds of Colombia":             {"d1": "yes", "d2": "no", "d3": "yes", "d4": "no"},
	"Films set in Paris":            {"d5": "yes", "d6": "yes"},
	"comedy films":                  {"d5": "yes", "d6": "yes"},
}

func derivedOf(t *testing.T, sum atompool.DerivedQrels, q string) atompool.DerivedQuery {
	t.Helper()
	for _, d := range sum.Queries {
		if d.QueryExtID == q {
			return d
		}
	}
	t.Fatalf("no derived qrels for %s in %+v", q, sum.Queries)
	return atompool.DerivedQuery{}
}

// TestConstraintJudgingDerivesQrels runs constraint judging end to end on a
// real Postgres: constraint items pooled from the project's relevance
// items, leased to r = 2 raters through the judging service, their
// majority written as atom labels by the consensus service, the derived
// qrels of both queries growing as they judge (three-valued: a split vote
// is unsure and leaves the document unknown), and the qrels-consensus and
// quest-judged exports marking the derived labels.
func TestConstraintJudgingDerivesQrels(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	cons := consensus.NewService(st, nil)
	t.Cleanup(cons.Close)
	svc := judging.New(st, cons, nil)
	svc.ObserveConstraints(cons)
	p := fx.Project.ID

	var inv *apperr.Invalid
	if _, err := atompool.Pool(ctx, st, p, atompool.ConstraintPoolRequest{Limit: -1}); !errors.As(err, &inv) || inv.Field != "limit" {
		t.Fatalf("negative limit: %v, want invalid", err)
	}
	res, err := atompool.Pool(ctx, st, p, atompool.ConstraintPoolRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// q1: 2 atoms × 4 documents, q2: 2 atoms × 2 documents.
	if res.Candidates != 12 || res.Created != 12 {
		t.Fatalf("pool: %+v, want 12 candidates and items", res)
	}
	if again, err := atompool.Pool(ctx, st, p, atompool.ConstraintPoolRequest{}); err != nil || again.Created != 0 || again.Candidates != 0 {
		t.Fatalf("second pool: %+v %v, want nothing new", again, err)
	}
	sum, err := atompool.Summary(ctx, st, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Constraint.Items != 12 || sum.AtomLabels != 0 || len(sum.Queries) != 2 {
		t.Fatalf("before judging: %+v", sum)
	}

	clientN := 0
	judge := func(user string, answer func(atom, doc string) string, max int) int {
		t.Helper()
		r := judging.Rater{ID: fx.Users[user].ID, Role: vocab.RoleAnnotator}
		done := 0
		for done < max {
			q, err := svc.Queue(ctx, r, fx.Project.Name, judging.QueueRequest{Kind: vocab.KindConstraint, N: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Tasks) == 0 {
				break
			}
			tk := q.Tasks[0]
			if tk.Kind != vocab.KindConstraint || tk.Constraint == nil || tk.Document == nil {
				t.Fatalf("task %+v is not a constraint task with a document", tk)
			}
			a := answer(tk.Constraint.Text, tk.Document.ExtID)
			clientN++
			_, err = svc.Submit(ctx, r, judging.JudgmentRequest{ClientID: fmt.Sprintf("5a1c0c3e-6b7d-4e2f-8a9b-%012d", clientN), AuthorID: r.ID,
				ItemID: tk.ItemID, Kind: vocab.KindConstraint, Constraint: &judging.ConstraintAnswer{Satisfied: a, Sentences: []int{1, 0, 1}}})
			if err != nil {
				t.Fatal(err)
			}
			done++
		}
		return done
	}
	truth := func(atom, doc string) string { return constraintTruth[atom][doc] }

	// A bad answer is refused, naming the field.
	{
		r := judging.Rater{ID: fx.Users["annotator3"].ID, Role: vocab.RoleAnnotator}
		q, err := svc.Queue(ctx, r, fx.Project.Name, judging.QueueRequest{Kind: vocab.KindConstraint, N: 1})
		if err != nil || len(q.Tasks) != 1 {
			t.Fatalf("queue: %v %v", q, err)
		}
		_, err = svc.Submit(ctx, r, judging.JudgmentRequest{ClientID: "5a1c0c3e-6b7d-4e2f-8a9b-999999999999", AuthorID: r.ID,
			ItemID: q.Tasks[0].ItemID, Kind: vocab.KindConstraint, Constraint: &judging.ConstraintAnswer{Satisfied: "maybe"}})
		if err == nil || !strings.Contains(err.Error(), "constraint.satisfied") {
			t.Fatalf("bad answer: %v, want constraint.satisfied refused", err)
		}
		_, err = svc.Submit(ctx, r, judging.JudgmentRequest{ClientID: "5a1c0c3e-6b7d-4e2f-8a9b-999999999998", AuthorID: r.ID,
			ItemID: q.Tasks[0].ItemID, Kind: vocab.KindConstraint, Constraint: &judging.ConstraintAnswer{Satisfied: "yes", Sentences: []int{7}}})
		if err == nil || !strings.Contains(err.Error(), "constraint.sentences") {
			t.Fatalf("bad sentence: %v, want constraint.sentences refused", err)
		}
	}
	// annotator2 agrees with the truth except on one pair: that split vote
	// is unsure.
	split := func(atom, doc string) string {
		if atom == "Birds of the Venezuelan Andes" && doc == "d4" {
			return "unsure"
		}
		return constraintTruth[atom][doc]
	}
	// annotator3 answers the item leased to them as annotator2 would (the
	// lease holds one of its two rater places).
	if n := judge("annotator3", split, 1); n != 1 {
		t.Fatalf("annotator3 judged %d, want 1", n)
	}

	// annotator1 judges half: their labels (and annotator3's) appear at once.
	if n := judge("annotator1", truth, 6); n != 6 {
		t.Fatalf("annotator1 judged %d, want 6", n)
	}
	cons.Flush()
	mid, err := atompool.Summary(ctx, st, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if mid.AtomLabels < 6 || mid.AtomLabels > 7 || mid.Constraint.Judged != mid.AtomLabels {
		t.Fatalf("after 6 judgments: %d labels, %+v", mid.AtomLabels, mid.Constraint)
	}
	judge("annotator1", truth, 100)
	if n := judge("annotator2", split, 100); n != 11 {
		t.Fatalf("annotator2 judged %d, want 11 (annotator3 has the 12th)", n)
	}
	// r = 2: a fourth rater gets nothing.
	if n := judge("annotator4", truth, 100); n != 0 {
		t.Fatalf("annotator4 judged %d, want 0 (every item has its 2 raters)", n)
	}
	// A label write lost after its judgment was stored (the process
	// stopped): the repairing summary recomputes it from the judgments.
	if _, err := st.Pool().Exec(ctx, `DELETE FROM atom_labels WHERE doc_ext_id = 'd6'`); err != nil {
		t.Fatal(err)
	}
	end, err := atompool.Summary(ctx, st, p, true)
	if err != nil {
		t.Fatal(err)
	}
	q1, q2 := derivedOf(t, end, "q1"), derivedOf(t, end, "q2")
	// q1 = Andes AND NOT Colombia: d2 relevant; d1, d3 not; d4 unknown
	// (Andes unsure, Colombia no).
	if q1.Relevant != 1 || q1.NonRelevant != 2 || q1.Unknown != 1 {
		t.Errorf("q1 derived %+v, want 1 relevant, 2 non-relevant, 1 unknown", q1)
	}
	if q2.Relevant != 2 || q2.NonRelevant != 0 || q2.Unknown != 0 {
		t.Errorf("q2 derived %+v, want 2 relevant", q2)
	}
	if end.Constraint.Judgments != 24 || end.Constraint.Judged != 12 {
		t.Errorf("constraint counts %+v, want 24 judgments, 12 labelled", end.Constraint)
	}
	// 11 of the 12 doubly judged items are unanimous.
	if c := end.Constraint; c.MultiRated != 12 || c.Unanimous < 0.916 || c.Unanimous > 0.917 || c.Kappa == nil || c.KappaItems != 12 {
		t.Errorf("constraint agreement %+v, want 12 items, 11/12 unanimous and a κ", c)
	}

	var buf bytes.Buffer
	if _, err := export.Write(ctx, st, p, "qrels-consensus", &buf, export.Options{Qrels: vocab.QrelsDerived}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	want := []string{"q1 0 d1 0 derived", "q1 0 d2 1 derived", "q1 0 d3 0 derived", "q2 0 d5 1 derived", "q2 0 d6 1 derived"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("qrels-consensus --qrels derived:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	buf.Reset()
	if _, err := export.Write(ctx, st, p, "qrels-consensus", &buf, export.Options{Qrels: "everything"}); err == nil {
		t.Error("unknown qrels mode accepted")
	}
	buf.Reset()
	if _, err := export.Write(ctx, st, p, "quest-judged", &buf, export.Options{Qrels: vocab.QrelsBoth}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"qrels_source": {"d2": "derived"}`) || !strings.Contains(buf.String(), `"docs_unknown": 1`) {
		t.Errorf("quest-judged --qrels both lacks the derived marks:\n%s", buf.String())
	}
}

func TestDecideConstraint(t *testing.T) {
	for _, tc := range []struct {
		votes []string
		want  string
		ok    bool
	}{
		{nil, "", false},
		{[]string{"yes"}, "yes", true},
		{[]string{"yes", "no"}, "unsure", true},
		{[]string{"no", "no", "yes"}, "no", true},
		{[]string{"yes", "unsure", "no"}, "unsure", true},
		{[]string{"unsure", "unsure"}, "unsure", true},
	} {
		got, ok := consensus.DecideConstraint(tc.votes)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: %q %v, want %q %v", tc.votes, got, ok, tc.want, tc.ok)
		}
	}
}

// TestConstraintGoldItems: imported atom labels become gold constraint
// items, leased by the project's gold rate, and a wrong answer counts
// against the rater's gold record (the gold accuracy check).
func TestConstraintGoldItems(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	p := fx.Project.ID
	if _, err := st.Pool().Exec(ctx, `UPDATE projects SET gold_rate = 1 WHERE id = $1`, p); err != nil {
		t.Fatal(err)
	}
	if _, err := atoms.Sync(ctx, st, p); err != nil {
		t.Fatal(err)
	}
	comedy := atomID(t, st, p, "comedy films")
	if err := st.SetAtomLabels(ctx, p, []store.AtomLabel{{AtomID: comedy, DocExtID: "d5", Label: "yes"}}); err != nil {
		t.Fatal(err)
	}
	res, err := atompool.Pool(ctx, st, p, atompool.ConstraintPoolRequest{Gold: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The labelled pair is no candidate; it is the one gold item.
	if res.Gold != 1 || res.Created != 12 || res.Candidates != 11 {
		t.Fatalf("pool with gold: %+v, want 11 candidates + 1 gold", res)
	}
	cons := consensus.NewService(st, nil)
	t.Cleanup(cons.Close)
	svc := judging.New(st, cons, nil)
	svc.ObserveConstraints(cons)
	r := judging.Rater{ID: fx.Users["annotator1"].ID, Role: vocab.RoleAnnotator}
	q, err := svc.Queue(ctx, r, fx.Project.Name, judging.QueueRequest{Kind: vocab.KindConstraint, N: 1})
	if err != nil || len(q.Tasks) != 1 {
		t.Fatalf("queue: %+v %v", q, err)
	}
	tk := q.Tasks[0]
	if tk.Constraint == nil || tk.Constraint.Text != "comedy films" || tk.Document.ExtID != "d5" {
		t.Fatalf("first task %+v is not the gold item", tk)
	}
	if _, err := svc.Submit(ctx, r, judging.JudgmentRequest{ClientID: "6b2d0c3e-6b7d-4e2f-8a9b-000000000001", AuthorID: r.ID, ItemID: tk.ItemID,
		Kind: vocab.KindConstraint, Constraint: &judging.ConstraintAnswer{Satisfied: "no"}}); err != nil {
		t.Fatal(err)
	}
	g, err := st.GoldRecordOf(ctx, p, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Judged != 1 || g.Correct != 0 {
		t.Errorf("gold record %+v, want 1 judged, 0 correct", g)
	}
	// The gold answer stays the pair's label.
	labels, err := st.AtomLabels(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 1 || labels[0].Label != "yes" || labels[0].Source != "import" {
		t.Errorf("labels after a wrong gold answer: %+v, want the imported yes only", labels)
	}
}

// TestConstraintItemsFollowMerge: merging atoms moves the merged atom's
// constraint items (and so their future consensus labels) to the atom
// kept.
func TestConstraintItemsFollowMerge(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	p := fx.Project.ID
	if _, err := atompool.Pool(ctx, st, p, atompool.ConstraintPoolRequest{}); err != nil {
		t.Fatal(err)
	}
	links, err := st.AtomLinks(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, l := range links {
		ids[l.AtomText] = l.AtomID
	}
	into, from := ids["comedy films"], ids["birds of Colombia"]
	if _, err := st.MergeAtoms(ctx, 0, p, into, from); err != nil {
		t.Fatal(err)
	}
	var n, orphans int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE atom_id = $2), count(*) FILTER (WHERE atom_id IS NULL)
		FROM items WHERE project_id = $1 AND kind = 'constraint'`, p, into).Scan(&n, &orphans); err != nil {
		t.Fatal(err)
	}
	if n != 6 || orphans != 0 {
		t.Errorf("after the merge: %d items of the kept atom (want 2 + 4), %d without an atom (want 0)", n, orphans)
	}
}
