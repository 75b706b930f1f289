package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/auth"
	"boolpool/server/poolestimate"
	"boolpool/server/store"
)

// estimateGrade is the grade of estimateProject's document number d for
// its query number q: its gold (the quest file's answer documents) graded
// 2 when d is a multiple of 5, else 1; every other document 0.
func estimateGrade(q, d int) int16 {
	if d%4 != q || (d%3 != q%3 && d%5 != 0) {
		return 0
	}
	if d%5 == 0 {
		return 2
	}
	return 1
}

// sameJSON fails unless a and b encode to the same JSON value.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	norm := func(v any) any {
		raw, ok := v.([]byte)
		if !ok {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		var out any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v: %s", what, err, raw)
		}
		return out
	}
	if na, nb := norm(a), norm(b); !reflect.DeepEqual(na, nb) {
		t.Errorf("%s differ:\n%v\n%v", what, na, nb)
	}
}

// TestEvalEstimateCLI: with a sampled pool published by `boolpool pool
// --strategy sample --publish` and every published item judged (stored
// judgments, graded by the quest gold), `boolpool eval --estimate --json`
// prints exactly poolestimate.Compute's result (what GET
// /api/projects/:p/estimates answers), with intervals from the design;
// its table prints the same numbers; --qrels, --runs and --metrics choose
// what is estimated; bad flags are errors naming them.
func TestEvalEstimateCLI(t *testing.T) {
	cli := estimateProject(t)
	ctx := context.Background()
	cli.must("pool", "--project", "p", "--runs", "bm25,pnorm,bm25-strict-boolean", "--strategy", "sample",
		"--sample-strata", "1-5:1,6-40:0.3", "--sample-seed", "5", "--name", "sampled", "--publish")

	st, err := store.Open(ctx, cli.db, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.ProjectByName(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword("an annotator's password", auth.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.CreateUser(ctx, store.NewUser{Username: "ann", Role: api.RoleAnnotator, PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddProjectMember(ctx, p.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	// Judge every published item.
	rows, err := st.Pool().Query(ctx, `SELECT i.id, q.text, d.ext_id FROM items i JOIN queries q ON q.id = i.query_id
		JOIN documents d ON d.id = i.document_id WHERE i.project_id = $1 AND i.kind = 'relevance' ORDER BY i.id`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		id          int64
		qtext, doc  string
		qn, dn, col int
	}
	var items []item
	for rows.Next() {
		var it item
		if err := rows.Scan(&it.id, &it.qtext, &it.doc); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscanf(it.qtext, "fruit%d colour%d", &it.qn, &it.col); err != nil {
			t.Fatalf("query %q: %v", it.qtext, err)
		}
		if _, err := fmt.Sscanf(it.doc, "doc%d", &it.dn); err != nil {
			t.Fatalf("document %q: %v", it.doc, err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(items) < 10 {
		t.Fatalf("published %d items", len(items))
	}
	for n, it := range items {
		g := estimateGrade(it.qn, it.dn)
		ev := api.EvidenceComplete
		j := store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n+1), ItemID: it.id, UserID: u.ID,
			ProjectID: p.ID, Kind: api.KindRelevance, Relevance: &g, Evidence: &ev}
		if _, _, err := st.SaveJudgment(ctx, j); err != nil {
			t.Fatal(err)
		}
	}

	out, _ := cli.must("eval", "--estimate", "--project", "p", "--json")
	want, err := poolestimate.Compute(ctx, st, p.ID, poolestimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "eval --estimate --json and poolestimate.Compute", []byte(out), want)
	if !want.Estimated || want.Pool != "sampled" || len(want.Runs) != 3 || len(want.Measures) != 4 || want.JudgedRelevant == 0 {
		t.Fatalf("estimates: pool %q estimated %v runs %d measures %v judged relevant %d",
			want.Pool, want.Estimated, len(want.Runs), want.Measures, want.JudgedRelevant)
	}
	// Ranks 6-40 were sampled at 0.3: the relevant total is estimated
	// with an interval of positive width.
	if r := want.RelevantTotal; r.SE <= 0 || r.Hi <= r.Lo || r.Est < float64(want.JudgedRelevant) {
		t.Errorf("relevant total %+v with %d judged relevant", r, want.JudgedRelevant)
	}
	sampled := 0
	for _, r := range want.Runs {
		for _, m := range want.Measures {
			v := r.Means[m]
			if v.Lo > v.Est || v.Est > v.Hi {
				t.Errorf("%s %s: %g outside [%g, %g]", r.Run, m, v.Est, v.Lo, v.Hi)
			}
			if v.Hi > v.Lo {
				sampled++
			}
		}
	}
	if sampled == 0 {
		t.Error("no estimate has an interval of positive width")
	}

	// The table prints the same numbers.
	table, _ := cli.must("eval", "--estimate", "--project", "p")
	for _, r := range want.Runs {
		for _, m := range want.Measures {
			v := r.Means[m]
			if w := fmt.Sprintf("%.4f [%.4f, %.4f]", v.Est, v.Lo, v.Hi); !strings.Contains(table, w) {
				t.Errorf("table lacks %s %s %s:\n%s", r.Run, m, w, table)
			}
		}
	}
	if w := fmt.Sprintf("%d judged relevant; estimated in all %.1f", want.JudgedRelevant, want.RelevantTotal.Est); !strings.Contains(table, w) {
		t.Errorf("table lacks %q:\n%s", w, table)
	}
	t.Logf("%d items judged; boolpool eval --estimate:\n%s", len(items), table)

	// --qrels replaces the consensus (here: only grade-2 documents), --runs
	// and --metrics narrow the estimate.
	var qrels strings.Builder
	gold := map[string]map[string]int{}
	for _, it := range items {
		var qid string
		if err := st.Pool().QueryRow(ctx, `SELECT q.ext_id FROM items i JOIN queries q ON q.id = i.query_id WHERE i.id = $1`, it.id).Scan(&qid); err != nil {
			t.Fatal(err)
		}
		g := 0
		if estimateGrade(it.qn, it.dn) == 2 {
			g = 1
		}
		fmt.Fprintf(&qrels, "%s 0 %s %d\n", qid, it.doc, g)
		if gold[qid] == nil {
			gold[qid] = map[string]int{}
		}
		gold[qid][it.doc] = g
	}
	out, _ = cli.must("eval", "--estimate", "--project", "p", "--pool", "sampled", "--qrels", cli.write("strict.qrels", qrels.String()),
		"--runs", "bm25,pnorm", "--metrics", "ap,p@5", "--json")
	strict, err := poolestimate.Compute(ctx, st, p.ID, poolestimate.Options{Pool: "sampled", Qrels: gold, Runs: []string{"bm25", "pnorm"}, Measures: "ap,p@5"})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "eval --estimate --qrels --runs --metrics and poolestimate.Compute", []byte(out), strict)
	if len(strict.Runs) != 2 || strings.Join(strict.Measures, ",") != "ap,p@5" || strict.JudgedRelevant >= want.JudgedRelevant {
		t.Errorf("strict estimate: runs %d measures %v judged relevant %d (consensus %d)", len(strict.Runs), strict.Measures, strict.JudgedRelevant, want.JudgedRelevant)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--estimate"}, "--project"},
		{[]string{"eval", "--estimate", "--project", "p", "--pool", "nosuch"}, "nosuch"},
		{[]string{"eval", "--estimate", "--project", "p", "--metrics", "mrr@10"}, "mrr@10"},
	} {
		_, errs, code := cli.exec(bad.args...)
		if code == 0 || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error naming %s", bad.args, code, errs, bad.want)
		}
	}
}
