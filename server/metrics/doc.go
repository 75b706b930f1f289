// Package metrics computes retrieval effectiveness over TREC-style qrels and
// runs: MRR@k, AP (MAP) and AP@k, nDCG@k, P@k, Recall@k, MRecall@k, set F1, NegRecall@k,
// Judged@k, the LogiCoL logical-consistency violation rate, the
// BoolQuestions pair measure NegAbove and NevIR pairwise accuracy, plus per-label breakdowns, bootstrap confidence
// intervals and a paired randomisation test.
//
// The trec_eval measures reproduce trec_eval 9.x exactly (checked against
// its source):
//
//   - Ranking: run lines are ordered by score descending, ties broken by
//     docid descending in byte (strcmp) order; the rank column is ignored.
//     Scores are float64, as trec_eval 9 parses them with atof into a double.
//   - Duplicate docids for one query in a run: trec_eval aborts; we keep the
//     first line in file order and report the count, so one sloppy line does
//     not make a whole run unevaluable.
//   - Averaging: over the queries present in both the qrels and the run
//     (trec_eval without -c). Queries only in the run are ignored; queries
//     only in the qrels are ignored unless Options.Complete is set (trec_eval
//     -c), in which case they score as an empty ranking. A query that is in
//     the qrels but has no relevant document is NOT dropped: trec_eval keeps
//     it and it scores 0 on every measure, and so do we.
//   - Relevance: grade >= MinRel (default 1, trec_eval -l) is relevant for
//     MRR, AP, P, Recall, MRecall and set F1. nDCG uses the raw grade of every
//     judged document with grade > 0 as its gain, whatever MinRel is, and the
//     ideal ranking is built from all such judged documents in the qrels, as
//     trec_eval's ndcg_cut does; the discount is log2(rank+1).
//   - P@k divides by k even when fewer than k documents were retrieved;
//     Recall@k divides by the number of relevant documents (0 when there
//     are none). Unjudged documents count as non-relevant.
//
// AP is trec_eval's map (map_cut_k with a cutoff: precision summed over
// the relevant documents in the top k, divided by all relevant documents).
// MRR@k is trec_eval's recip_rank restricted to the top k: 1/rank of the
// first relevant document at rank <= k, else 0. Judged@k is the fraction of
// the top min(k, retrieved) documents that appear in the qrels with any
// grade, as in ir_measures (ranked with the trec_eval order above).
//
// The measures outside trec_eval are defined in their own functions' doc
// comments (MRecall, NegRecall, SetF1, Violation, NegAbove, NevIRAccuracy).
// Evaluate scores them on the same queries as the rest (qrels ∩ run), and a
// query for which one is undefined simply lacks it: NegRecall needs at least
// one explicit negative, Violation and NegAbove at least one relevant
// document and one negative. Their means are over the queries that have
// them. NevIR accuracy ("nevir") is over Options.NevIRPairs instead: a pair
// is scored when the run has both its queries (every pair with Complete),
// and its 0/1 outcome is recorded on its first query's row, so the mean
// over queries is the pairwise accuracy and Count is the number of pairs.
//
// EvaluateRun is the evaluator of both `boolpool eval` and `boolpool
// retrieve eval`: it ranks a run with Rank (the trec_eval order above, not
// the run's stored ranks), keeps the scores for NegAbove, and reports the
// dropped duplicates and the qrels queries the run lacks (Result.Missing).
package metrics
