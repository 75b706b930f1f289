package synth

import (
	"fmt"
	"math/rand/v2"

	"boolpool/server/consensus"
	"boolpool/server/live"
)

// LiveSpec sizes a synthetic live project for benchmarks and tests.
type LiveSpec struct {
	Queries   int // e.g. 2000
	Runs      int // e.g. 10
	Judgments int // current judgments in all, e.g. 100000
	Raters    int // raters per item, e.g. 3
	Annotator int // size of the annotator crowd, e.g. 30
	Seed      uint64
}

// Live builds a project of the given size: each run ranks live.RankDepth
// documents per query out of a per-query universe, the judged items are
// the union of the runs' top documents, and each item gets Raters votes
// from a crowd whose labels scatter around a latent grade (so agreement is
// neither perfect nor absent). A third of the queries have explicit
// negatives; one item in fifty is gold. Item ids start at 1, query ids at
// 1, users at 1.
func Live(sp LiveSpec) live.Data {
	rng := rand.New(rand.NewPCG(sp.Seed, 0x73796e))
	raters := max(sp.Raters, 1)
	d := live.Data{RatersPerItem: raters, Negatives: map[int64][]string{}, Votes: map[int64][]consensus.Vote{},
		Adjudicated: map[int64]int{}, Users: map[int64]string{}}
	templates := []string{"_", "_ or _", "_ and _", "_ that are not _", "_ or _ or _", "_ and _ and _", "_ that are also both _ and _"}
	operators := [][]string{{"ATOM"}, {"OR"}, {"AND"}, {"AND", "NOT"}, {"OR"}, {"AND"}, {"AND"}}
	universe := live.RankDepth * 3
	for q := range sp.Queries {
		d.Queries = append(d.Queries, live.Query{ID: int64(q + 1), ExtID: fmt.Sprintf("q%05d", q), Template: templates[q%len(templates)], Operators: operators[q%len(templates)]})
	}
	for r := range sp.Runs {
		d.Runs = append(d.Runs, live.Run{Name: fmt.Sprintf("run%02d", r), Ranked: map[int64][]string{}})
	}
	docName := func(q, i int) string { return fmt.Sprintf("q%05d-d%03d", q, i) }
	perQuery := (sp.Judgments/raters + sp.Queries - 1) / max(sp.Queries, 1)
	itemID := int64(1)
	made := 0
	for qi, q := range d.Queries {
		// Runs share a popular head of documents and differ in the tail.
		for r := range d.Runs {
			perm := rng.Perm(universe)
			head := rng.Perm(20)
			seen := map[int]bool{}
			var ranked []string
			for _, x := range append(head[:10], perm...) {
				if !seen[x] && len(ranked) < live.RankDepth {
					seen[x] = true
					ranked = append(ranked, docName(qi, x))
				}
			}
			d.Runs[r].Ranked[q.ID] = ranked
		}
		if qi%3 == 0 {
			for i := range 5 {
				d.Negatives[q.ID] = append(d.Negatives[q.ID], docName(qi, universe-1-i))
			}
		}
		// Items: the runs' documents, rank by rank, until the quota.
		picked := map[string]bool{}
		for rank := 0; rank < live.RankDepth && len(picked) < perQuery && made < sp.Judgments; rank++ {
			for r := range d.Runs {
				doc := d.Runs[r].Ranked[q.ID][rank]
				if picked[doc] || len(picked) >= perQuery || made >= sp.Judgments {
					continue
				}
				picked[doc] = true
				it := live.Item{ID: itemID, QueryID: q.ID, DocExtID: doc, Gold: -1}
				itemID++
				latent := []int{0, 1, 2, 3, 3}[rng.IntN(5)]
				if rng.IntN(50) == 0 {
					it.Gold = latent
				}
				d.Items = append(d.Items, it)
				for _, u := range rng.Perm(max(sp.Annotator, raters))[:raters] {
					if made >= sp.Judgments {
						break
					}
					d.Votes[it.ID] = append(d.Votes[it.ID], consensus.Vote{Rater: int64(u + 1), Label: Label(rng, latent), Contradiction: rng.IntN(40) == 0})
					made++
				}
			}
		}
	}
	for u := range max(sp.Annotator, raters) {
		d.Users[int64(u+1)] = fmt.Sprintf("annotator%02d", u+1)
	}
	return d
}

// Label is a crowd label around a latent grade: right 70 % of the
// time, one grade off otherwise.
func Label(rng *rand.Rand, latent int) int {
	switch x := rng.IntN(10); {
	case x < 7:
		return latent
	case x < 9:
		return min(latent+1, 3)
	default:
		return max(latent-1, 0)
	}
}
