// Package atompool is constraint pooling in the product (issue 13), the
// product side of shared constraints: constraint items (Pool), atoms pools
// (Publish; the next batch chosen by NextBatch over the runs' top
// documents or NextBatchCorpus over the whole corpus; Grow, run by the
// atoms-batch job; AtomsTrigger, the consensus listener that queues it),
// the labels of the derived / both leaderboard (QrelsLabels), the
// derived-qrels summary of the dashboard (Summary, SyncConstraints) and a
// project's consistency flags (ProjectInconsistencies).
//
// The per-atom active learners over a corpus (Learners, corpus.go) and the
// choice of the atom to ask (NextAtom) serve the atoms pools and the
// research simulations alike; the simulations themselves — constraint
// pooling against an oracle, the query-level baselines and bounds — are
// server/atomsim, which imports this package and is not imported by it.
package atompool
