package metrics

import (
	"math"
	"sort"
)

// Every per-query function below takes the ranked docids of one query (best
// first) and that query's judgments (docid → grade). k <= 0 means no cutoff.

func cut(ranked []string, k int) []string {
	if k > 0 && k < len(ranked) {
		return ranked[:k]
	}
	return ranked
}

// numRelevant counts judged documents with grade >= minRel.
func numRelevant(judged map[string]int, minRel int) int {
	n := 0
	for _, g := range judged {
		if g >= minRel {
			n++
		}
	}
	return n
}

func relRetrieved(ranked []string, judged map[string]int, minRel int) int {
	n := 0
	for _, d := range ranked {
		if g, ok := judged[d]; ok && g >= minRel {
			n++
		}
	}
	return n
}

// ReciprocalRank is 1/rank of the first relevant document within the top k,
// 0 if there is none.
func ReciprocalRank(ranked []string, judged map[string]int, minRel, k int) float64 {
	for i, d := range cut(ranked, k) {
		if g, ok := judged[d]; ok && g >= minRel {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// AveragePrecision is trec_eval's map for one query: the precision at the
// rank of every relevant retrieved document, summed and divided by the
// number of relevant documents in the qrels (so an unretrieved relevant
// document adds 0); 0 for a query without relevant documents. With k > 0
// only the top k count and the divisor is still the number of relevant
// documents (trec_eval's map_cut_k).
func AveragePrecision(ranked []string, judged map[string]int, minRel, k int) float64 {
	nrel := numRelevant(judged, minRel)
	if nrel == 0 {
		return 0
	}
	sum, found := 0.0, 0
	for i, d := range cut(ranked, k) {
		if g, ok := judged[d]; ok && g >= minRel {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	return sum / float64(nrel)
}

// Precision is the number of relevant documents in the top k divided by k
// (not by the number retrieved: a short run is penalised, as in trec_eval).
// With k <= 0 it divides by the number retrieved (trec_eval's set_P).
func Precision(ranked []string, judged map[string]int, minRel, k int) float64 {
	top := cut(ranked, k)
	den := k
	if k <= 0 {
		den = len(top)
	}
	if den == 0 {
		return 0
	}
	return float64(relRetrieved(top, judged, minRel)) / float64(den)
}

// Recall is the fraction of the relevant documents found in the top k; 0 for
// a query without relevant documents (trec_eval).
func Recall(ranked []string, judged map[string]int, minRel, k int) float64 {
	nrel := numRelevant(judged, minRel)
	if nrel == 0 {
		return 0
	}
	return float64(relRetrieved(cut(ranked, k), judged, minRel)) / float64(nrel)
}

// MRecall is Min et al.'s (2021) MRecall@k as used by QUEST: 1 if the top k
// contains all relevant documents, or, when there are more relevant
// documents than k, if the top k consists only of relevant documents (it
// holds min(k, |relevant|) of them); else 0. A query without relevant
// documents scores 0, consistent with Recall. k <= 0 means "all relevant
// documents anywhere in the ranking".
func MRecall(ranked []string, judged map[string]int, minRel, k int) float64 {
	nrel := numRelevant(judged, minRel)
	if nrel == 0 {
		return 0
	}
	need := nrel
	if k > 0 && k < need {
		need = k
	}
	if relRetrieved(cut(ranked, k), judged, minRel) >= need {
		return 1
	}
	return 0
}

// NDCG is trec_eval's ndcg_cut: gain = grade for every document with grade >
// 0 (regardless of the relevance threshold), discount log2(rank+1), ideal
// DCG from all positively graded judged documents sorted by grade, cut at k.
// 0 when the ideal DCG is 0.
func NDCG(ranked []string, judged map[string]int, k int) float64 {
	dcg := 0.0
	for i, d := range cut(ranked, k) {
		if g := judged[d]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	grades := make([]int, 0, len(judged))
	for _, g := range judged {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	if k > 0 && k < len(grades) {
		grades = grades[:k]
	}
	ideal := 0.0
	for i, g := range grades {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal <= 0 {
		return 0
	}
	return dcg / ideal
}

// Judged is the fraction of the top k that has a judgment of any grade. It
// divides by the number of documents actually in the top k, min(k,
// retrieved), as ir_measures' Judged@k does (since its 2022 fix), so a short
// run is not mistaken for an unjudged one. 0 for an empty ranking.
func Judged(ranked []string, judged map[string]int, k int) float64 {
	top := cut(ranked, k)
	if len(top) == 0 {
		return 0
	}
	n := 0
	for _, d := range top {
		if _, ok := judged[d]; ok {
			n++
		}
	}
	return float64(n) / float64(len(top))
}

// SetF1 is QUEST's (§4.2) F1 of a predicted document set against the
// relevant set: 2PR/(P+R) with P = |pred ∩ rel|/|pred| and R = |pred ∩
// rel|/|rel|; 0 when either set is empty or they do not meet. Duplicates in
// predicted count once. QUEST averages this per-query value over queries.
func SetF1(predicted []string, judged map[string]int, minRel int) float64 {
	nrel := numRelevant(judged, minRel)
	seen := make(map[string]bool, len(predicted))
	hit := 0
	for _, d := range predicted {
		if seen[d] {
			continue
		}
		seen[d] = true
		if g, ok := judged[d]; ok && g >= minRel {
			hit++
		}
	}
	if hit == 0 || nrel == 0 {
		return 0
	}
	p := float64(hit) / float64(len(seen))
	r := float64(hit) / float64(nrel)
	return 2 * p * r / (p + r)
}

// NegRecall is BoolQuestions' NegRecall@k: the fraction of a query's
// explicit negatives (documents that satisfy the positive part of the query
// but violate a negated constraint) that appear in the top k. Lower is
// better. ok is false when the query has no explicit negative; such queries
// are left out of the mean, as in BoolQuestions' evaluation.
func NegRecall(ranked []string, negatives map[string]bool, k int) (v float64, ok bool) {
	if len(negatives) == 0 {
		return 0, false
	}
	n := 0
	for _, d := range cut(ranked, k) {
		if negatives[d] {
			n++
		}
	}
	return float64(n) / float64(len(negatives)), true
}

// Violation is LogiCoL's logical-consistency check for one query: it is
// violated (1) when the average rank of the excluded (explicitly negative)
// documents is better, i.e. smaller, than the average rank of the relevant
// documents, and 0 otherwise (equal averages are not a violation). A
// document absent from the top k (or from the whole ranking when k <= 0)
// gets rank L+1, where L is the length of the ranking considered: it was
// ranked below everything shown, and giving all missing documents the same
// rank keeps the average from rewarding a run for retrieving less. ok is
// false when the query has no relevant document or no negative; such
// queries are left out of the rate. A document both relevant and negative
// counts in both averages.
func Violation(ranked []string, judged map[string]int, minRel int, negatives map[string]bool, k int) (v float64, ok bool) {
	nrel := numRelevant(judged, minRel)
	if nrel == 0 || len(negatives) == 0 {
		return 0, false
	}
	top := cut(ranked, k)
	missing := float64(len(top) + 1)
	relSum, negSum := 0.0, 0.0
	relFound, negFound := 0, 0
	for i, d := range top {
		r := float64(i + 1)
		if g, ok := judged[d]; ok && g >= minRel {
			relSum += r
			relFound++
		}
		if negatives[d] {
			negSum += r
			negFound++
		}
	}
	relAvg := (relSum + missing*float64(nrel-relFound)) / float64(nrel)
	negAvg := (negSum + missing*float64(len(negatives)-negFound)) / float64(len(negatives))
	if negAvg < relAvg {
		return 1, true
	}
	return 0, true
}

// NevIRPair is one NevIR contrastive pair: two queries that differ by a
// negation and two documents, Doc1 relevant to Query1 only and Doc2
// relevant to Query2 only.
type NevIRPair struct {
	Query1, Query2, Doc1, Doc2 string
}

// NevIRAccuracy is NevIR's pairwise accuracy: the fraction of pairs for
// which the run ranks Doc1 above Doc2 for Query1 AND Doc2 above Doc1 for
// Query2. A document missing from a ranking is below every retrieved one;
// when both are missing the pair fails (the run did not order them). 0 for
// no pairs.
func NevIRAccuracy(ranked Ranked, pairs []NevIRPair) float64 {
	if len(pairs) == 0 {
		return 0
	}
	n := 0
	for _, p := range pairs {
		if NevIRPairCorrect(ranked, p) {
			n++
		}
	}
	return float64(n) / float64(len(pairs))
}

// NevIRPairCorrect reports whether the run ranks Doc1 above Doc2 for Query1
// and Doc2 above Doc1 for Query2 (see NevIRAccuracy).
func NevIRPairCorrect(ranked Ranked, p NevIRPair) bool {
	above := func(q, a, b string) bool {
		ra, rb := -1, -1
		for i, d := range ranked[q] {
			if d == a && ra < 0 {
				ra = i
			}
			if d == b && rb < 0 {
				rb = i
			}
		}
		return ra >= 0 && (rb < 0 || ra < rb)
	}
	return above(p.Query1, p.Doc1, p.Doc2) && above(p.Query2, p.Doc2, p.Doc1)
}

// NegAbove is the BoolQuestions pair measure for one query: 1 when the
// query's best-scored explicit negative scores at or above its best-scored
// relevant document, else 0. Lower is better. With one positive and one
// negative passage per query (BoolQuestions) it says whether the negative
// passage was not ranked strictly below the positive one. Only the top k
// count (the whole ranking when k <= 0); a document outside them scores
// -Inf, so a query whose relevant documents are all missing fails (a tie,
// even of two missing documents, is a failure: the run did not separate
// them). scores maps docid to the run's score. ok is false when the query
// has no relevant document or no explicit negative; such queries are left
// out of the mean.
func NegAbove(ranked []string, scores map[string]float64, judged map[string]int, minRel int, negatives map[string]bool, k int) (v float64, ok bool) {
	if numRelevant(judged, minRel) == 0 || len(negatives) == 0 {
		return 0, false
	}
	bestPos, bestNeg := math.Inf(-1), math.Inf(-1)
	for _, d := range cut(ranked, k) {
		s := scores[d]
		if g, ok := judged[d]; ok && g >= minRel && s > bestPos {
			bestPos = s
		}
		if negatives[d] && s > bestNeg {
			bestNeg = s
		}
	}
	if bestNeg >= bestPos {
		return 1, true
	}
	return 0, true
}
