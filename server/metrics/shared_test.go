package metrics

import (
	"boolpool/internal/shareddata"
	"bufio"
	"encoding/json"
	"testing"
)

// TestSharedDebQuest scores an oracle run on the DebQUEST validation split
// (gold sets as binary qrels) and checks the measures and the per-template
// breakdown on real query shapes. Runs when BOOLPOOL_SHARED_DATA is set.
func TestSharedDebQuest(t *testing.T) {
	f := shareddata.Open(t, "debquest", "val.jsonl")
	qrels := Qrels{}
	oracle := Run{}
	halfway := Run{} // every other gold document, then a non-relevant one
	labels := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var rec struct {
			Query    string   `json:"query"`
			Docs     []string `json:"docs"`
			Metadata struct {
				Template string `json:"template"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		qid := rec.Query
		qrels[qid] = map[string]int{}
		for i, d := range rec.Docs {
			qrels[qid][d] = 1
			oracle[qid] = append(oracle[qid], Scored{DocID: d, Score: float64(len(rec.Docs) - i)})
			if i%2 == 0 {
				halfway[qid] = append(halfway[qid], Scored{DocID: d, Score: float64(len(rec.Docs) - i)})
			}
		}
		halfway[qid] = append(halfway[qid], Scored{DocID: "not-a-package", Score: 0})
		labels[qid] = []string{rec.Metadata.Template}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	specs, _ := ParseSpecs("ndcg@1000,recall@1000,mrecall@1000,p@1,judged@10,f1")
	ranked, dups := RankRun(oracle)
	res := Evaluate(qrels, ranked, specs, Options{})
	if dups != 0 || len(res.PerQuery) != n {
		t.Fatalf("dups %d, scored %d of %d", dups, len(res.PerQuery), n)
	}
	for _, m := range []string{"ndcg@1000", "recall@1000", "mrecall@1000", "p@1", "judged@10", "f1"} {
		if res.Mean[m] != 1 {
			t.Errorf("oracle %s = %v, want 1", m, res.Mean[m])
		}
	}
	rh, _ := RankRun(halfway)
	half := Evaluate(qrels, rh, specs, Options{})
	if r := half.Mean["recall@1000"]; !(r > 0.5 && r < 1) {
		t.Errorf("halfway recall = %v", r)
	}
	groups := GroupMeans(half.Values("recall@1000"), labels)
	if len(groups) < 3 {
		t.Errorf("only %d templates: %v", len(groups), groups)
	}
	diff := PairedRandomization(res.Values("ndcg@1000"), half.Values("ndcg@1000"), 2000, 1)
	if diff.Diff <= 0 || diff.P > 0.01 {
		t.Errorf("oracle vs halfway: %+v", diff)
	}
	t.Logf("%d queries; halfway recall@1000 %.4f; by template %v", n, half.Mean["recall@1000"], groups)
}
