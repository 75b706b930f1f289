package httpapi_test

import (
	"context"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/server/atompool"
	"boolpool/server/pooling"
)

// newAtomsEnv is the fixture (1 rater per item) with the two runs and a
// job client running the pool and atoms-batch kinds, as serve builds it.
func newAtomsEnv(t *testing.T) *env {
	t.Helper()
	st, fx := fixtureWithRuns(t, 1)
	return serveWithJobs(t, st, fx, 1)
}

// TestAtomsPoolGrows: a pool with strategy atoms publishes its first batch
// of constraint items; an annotator judges them through the API; each
// labelled batch queues an atoms-batch job (real River) that adds the next
// one, chosen from the labels so far: one atom of a query per document at
// a time (the one most likely to decide its expression), the next only
// if the first leaves it undecided. The pool ends when every candidate's
// derived label is known, with fewer constraint items than (atom,
// candidate) pairs.
func TestAtomsPoolGrows(t *testing.T) {
	e := newAtomsEnv(t)
	r := e.login("researcher")
	var problem api.Problem
	if st := r.do("POST", "/api/projects/fixture/pools", api.PoolSpec{Name: "atoms", Runs: []string{"bm25"}, Depth: 3, Strategy: api.StrategyAtoms, AtomsBatch: -1}, &problem); st != 400 || problem.Field != "atoms.batch" {
		t.Fatalf("a negative batch: %d %+v, want 400 naming atoms.batch", st, problem)
	}
	spec := api.PoolSpec{Name: "atoms", Runs: []string{"bm25", "dense"}, Depth: 3, Strategy: api.StrategyAtoms, AtomsBatch: 2}
	pub := publishPool(t, r, "fixture", spec)
	if pub.ItemsCreated != 2 || pub.Preview.Strategy != api.StrategyAtoms || pub.Preview.Composition.Queries != 2 {
		t.Fatalf("published = %+v, want the first batch of 2 constraint items", pub)
	}
	asked, batchOf, batches := judgeAtomsPool(t, e, pub.PoolID, 2)
	t.Logf("%d batches, %d constraint judgments: %v", batches, len(asked), asked)
	type pair = atomPair
	queryOf := map[string]string{"Birds of the Venezuelan Andes": "q1", "birds of Colombia": "q1", "Films set in Paris": "q2", "comedy films": "q2"}
	seen := map[pair]bool{}
	perBatch := map[[3]any]int{}
	for _, p := range asked {
		if seen[p] {
			t.Errorf("%v asked twice", p)
		}
		seen[p] = true
		// One atom of a query per document and batch: the next one only
		// once the first one's label is known (and leaves it undecided).
		k := [3]any{batchOf[p], queryOf[p.atom], p.doc}
		if perBatch[k]++; perBatch[k] > 1 {
			t.Errorf("batch %d asks two atoms of %s about %s", batchOf[p], queryOf[p.atom], p.doc)
		}
	}
	// Candidates: q1 d1 d2 d5 d6, q2 d1 d3 d5 d6: 16 (atom, document)
	// pairs; a label that decides the expression spares the other atom.
	if len(asked) >= 16 || batches < 4 {
		t.Errorf("%d constraint judgments in %d batches, want fewer than 16 in at least 4", len(asked), batches)
	}
	wantDerivedAll(t, e, 4)
}

// wantDerivedAll checks the derived qrels once an atoms pool is done:
// each query's n candidates all decided, q1 with 1 relevant, q2 with 2.
func wantDerivedAll(t *testing.T, e *env, n int) {
	t.Helper()
	sum, err := atompool.Summary(context.Background(), e.st, e.fx.Project.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range sum.Queries {
		want := map[string]int{"q1": 1, "q2": 2}[q.QueryExtID]
		if q.Relevant != want || q.Unknown != 0 || q.Relevant+q.NonRelevant != n {
			t.Errorf("%s derived %+v, want %d relevant of %d candidates, none unknown", q.QueryExtID, q, want, n)
		}
	}
}

// TestAtomsPoolGrowsOverCorpus: an atoms pool with candidates "corpus" asks
// about every document of the project, not only the runs' top depth (here
// depth 1): an active learner per atom ranks the corpus, batch by batch
// (real River), until every query's derived label of every document is
// known — each pair asked once, the derived qrels those of the truth.
func TestAtomsPoolGrowsOverCorpus(t *testing.T) {
	e := newAtomsEnv(t)
	r := e.login("researcher")
	var problem api.Problem
	if st := r.do("POST", "/api/projects/fixture/pools", api.PoolSpec{Name: "atoms", Runs: []string{"bm25"}, Depth: 1, Strategy: api.StrategyAtoms, AtomsCandidates: "everything"}, &problem); st != 400 || problem.Field != "atoms.candidates" {
		t.Fatalf("unknown candidates: %d %+v, want 400 naming atoms.candidates", st, problem)
	}
	// Corpus candidates need no runs, and the preview lists no run's
	// candidates (issue 25: it previewed the runs' and required runs).
	corpus := api.PoolSpec{Name: "atoms-corpus", Depth: 1, Strategy: api.StrategyAtoms, AtomsBatch: 3, AtomsCandidates: "corpus"}
	var pv api.PoolPreview
	if st := r.do("POST", "/api/projects/fixture/pools/preview", corpus, &pv); st != 200 || pv.Items != 0 || len(pv.Composition.Runs) != 0 {
		t.Fatalf("preview of corpus candidates without runs: %d %+v, want 200 with no run's candidates", st, pv)
	}
	if st := r.do("POST", "/api/projects/fixture/pools/preview", api.PoolSpec{Name: "atoms-runs", Depth: 1, Strategy: api.StrategyAtoms}, &problem); st != 400 || problem.Field != "runs" {
		t.Errorf("runs candidates without runs: %d %+v, want 400 naming runs", st, problem)
	}
	pub := publishPool(t, r, "fixture", corpus)
	if pub.ItemsCreated != 3 {
		t.Fatalf("published = %+v, want the first batch of 3 constraint items", pub)
	}
	asked, _, batches := judgeAtomsPool(t, e, pub.PoolID, 3)
	t.Logf("%d batches, %d constraint judgments: %v", batches, len(asked), asked)
	seen := map[atomPair]bool{}
	for _, p := range asked {
		if seen[p] {
			t.Errorf("%v asked twice", p)
		}
		seen[p] = true
	}
	// 6 documents, 2 queries of 2 atoms: at most 24 pairs; labels that
	// decide an expression spare the other atom.
	if len(asked) >= 24 {
		t.Errorf("%d constraint judgments, want fewer than the 24 (atom, document) pairs", len(asked))
	}
	wantDerivedAll(t, e, 6) // every document a candidate
}

// atomPair is a constraint item's (atom text, document).
type atomPair struct{ atom, doc string }

// judgeAtomsPool answers an atoms pool's constraint items as an annotator
// who knows fixtureTruth (anything not listed: no), waiting after each
// labelled batch for its atoms-batch job (real River), until a job adds
// nothing. It returns the pairs asked in order, the batch of each, and the
// number of batches; a batch larger than size fails the test.
func judgeAtomsPool(t *testing.T, e *env, poolID int64, size int) ([]atomPair, map[atomPair]int, int) {
	t.Helper()
	ctx := context.Background()
	a := e.login("annotator1")
	answer := func(atom, doc string) string {
		if v := fixtureTruth[atom][doc]; v != "" {
			return v
		}
		return "no"
	}
	type pair = atomPair
	var asked []pair
	batchOf := map[pair]int{}
	batches := 1
	for n := 1; ; {
		q := a.queue(api.KindConstraint, 10)
		for _, tk := range q.Tasks {
			asked = append(asked, pair{tk.Constraint.Text, tk.Document.ExtID})
			batchOf[asked[len(asked)-1]] = batches
			req := api.JudgmentRequest{ClientID: uuid(n), AuthorID: a.id, ItemID: tk.ItemID, Kind: api.KindConstraint,
				Constraint: &api.ConstraintAnswer{Satisfied: answer(tk.Constraint.Text, tk.Document.ExtID)}}
			n++
			if st := a.do("POST", "/api/judgments", req, nil); st != 201 {
				t.Fatalf("judgment: %d", st)
			}
		}
		// The labelled batch queues a job; wait for it to finish and see
		// whether it added a batch.
		before, _, err := e.st.AtomPoolState(ctx, poolID)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			var open int
			if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM jobs WHERE kind = $1 AND state IN ('queued', 'running')`, pooling.AtomsJobKind).Scan(&open); err != nil {
				t.Fatal(err)
			}
			var done int
			if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM jobs WHERE kind = $1 AND state = 'done'`, pooling.AtomsJobKind).Scan(&done); err != nil {
				t.Fatal(err)
			}
			if open == 0 && done >= batches {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %d: the atoms-batch job did not finish (%d open, %d done)", batches, open, done)
			}
			time.Sleep(50 * time.Millisecond)
		}
		after, pending, err := e.st.AtomPoolState(ctx, poolID)
		if err != nil {
			t.Fatal(err)
		}
		if after == before {
			if pending != 0 {
				t.Fatalf("the pool stopped with %d items unlabelled", pending)
			}
			break
		}
		if after-before > size {
			t.Fatalf("batch %d added %d items, more than the batch size %d", batches+1, after-before, size)
		}
		batches++
		if batches > 20 {
			t.Fatal("the pool never ends")
		}
	}
	return asked, batchOf, batches
}
