// Package estimate is the statistical core of sampled pools: it draws a
// stratified sample of documents to judge per query, estimates retrieval
// measures and the number of relevant documents from the judged sample
// with intervals whose variance comes from the sampling design, and
// compares run rankings. It does no I/O and keeps no state.
//
// # Design
//
// Draw partitions one query's documents into strata — by the best rank any
// run gives a document (ranks 1–10, 11–100, …), optionally by rank in a
// cheap proxy ranking of the whole corpus, and a certainty stratum of the
// documents judged before — and draws a simple random sample without
// replacement from each, every unit carrying its inclusion probability
// π = n_h/N_h. This is the stratified design of statAP (Aslam, Pavlu &
// Yilmaz 2006, "A statistical method for system evaluation using
// incomplete judgments", SIGIR) and of the stratified infAP/infNDCG family
// (Yilmaz, Kanoulas & Aslam 2008, "A simple and efficient sampling method
// for estimating AP and NDCG", SIGIR), with the rates falling with rank as
// in the strategies Voorhees (2014, "The effect of sampling strategy on
// inferred measures", SIGIR) found to estimate best. ScaleToBudget fits
// the rates to a number of judgments.
//
// # Estimators
//
// Relevance is y = grade ≥ minRel; the gain of nDCG is the raw grade, as
// in metrics.NDCG. Every estimator is a Horvitz–Thompson sum over the
// judged units, each weighted 1/π:
//
//   - R̂ = Σ y/π, the number of relevant documents in the design's reach;
//   - P@k = Σ_{top k ∩ s} (y/π) / k;
//   - R@k = Σ_{top k ∩ s} (y/π) / R̂;
//   - AP (statAP) = (1/R̂) Σ_{d ∈ s, y_d = 1} (1/π_d)·prec(r_d), with
//     prec(r) = (1/r)(1 + Σ_{j ∈ s, r_j < r} y_j/π_j); ap@k keeps r_d ≤ k
//     and still divides by R̂ (trec_eval's map_cut);
//   - nDCG@k = DCG@k / IDCG@k with DCG@k = Σ_{top k ∩ s} (g/π)/log2(r+1)
//     and the ideal built from the estimated number of documents of each
//     grade, Ĝ_g = Σ 1[grade = g]/π, filling positions 1..k with the
//     highest grades first using fractional counts: position i receives
//     Σ_g g·|[i−1, i] ∩ [C_{g−1}, C_g]| / log2(i+1), C the cumulative
//     counts from the highest grade. With integer counts this is the
//     usual ideal ranking.
//
// Ranked documents that are not judged units contribute nothing. When
// R̂ = 0, AP, R@k and nDCG@k are 0 with standard error 0 (a jackknife
// replicate with R̂ = 0 counts 0 as well).
//
// R̂ and P@k are linear (Horvitz–Thompson) and unbiased. AP, R@k and nDCG@k
// are ratios (and AP's numerator is quadratic in the weights), hence
// biased in small samples, upwards mostly: E[1/R̂] > 1/R, and the ideal
// DCG is concave in the estimated counts. Est is therefore the plug-in
// value minus the stratified jackknife estimate of its bias,
// b̂ = Σ_h (1 − f_h)(n_h − 1)(θ̄_(h·) − θ̂), over the strata with at least
// two judged units (Input.Plugin turns this off). On a fixture of 60
// sparsely sampled queries this cut the bias of the mean nDCG@20 from
// +0.043 to −0.008 and of R@100 from +0.065 to +0.000 (AP: +0.011 to
// −0.009), bringing the coverage of the means' 95 % intervals from about
// 0.4–0.55 to 0.90–0.94. b̂ is exactly 0 for the linear estimators and
// when every stratum is a certainty stratum. A per-query Est of a bounded
// measure can leave [0, 1] (an HT P@k, a corrected ratio); it is not
// clipped, so means over queries keep their (near) unbiasedness. With every π = 1
// and every ranked document judged, each estimate equals the plain
// measure of package metrics exactly. Other measures (mrr, judged, f1 …)
// are the plain measure over the judged units (unjudged = not relevant)
// and come back with Value.Plain set and no interval.
//
// A drawn unit that is not judged yet is left out: in each stratum n_h
// becomes the number judged and π = n_h/N_h. This is valid because Draw
// lists a stratum's units in random order, so any prefix judged is itself
// a simple random sample of the stratum. Judgments of documents that are
// not units of the design are ignored. A stratum none of whose units is
// judged contributes nothing (the estimate then covers the other strata
// only).
//
// # Variance
//
// The variance is the design's, not the queries': a stratified
// delete-one jackknife (JKn) with finite-population correction,
//
//	v = Σ_h (1 − f_h)·(n_h − 1)/n_h·Σ_j (θ̂_(hj) − θ̂_(h·))²,  f_h = n_h/N_h,
//
// where replicate (h, j) gives unit j weight 0 and the other units of
// stratum h weight N_h/(n_h − 1). For a total this is exactly the
// textbook N_h²(1 − f_h)s_h²/n_h. Every replicate is computed in O(1) from
// per-stratum sums (statAP's too, see apRows), so a query costs time
// linear in its sample and ranking. The variance is that of the plug-in
// estimate; the bias-corrected one varies a little more (a small
// undercoverage of its intervals, about 0.90–0.93 instead of 0.95 for
// means, in the tests). A stratum with a single judged unit
// (N_h > 1) cannot estimate its own spread: it contributes the
// conservative (1 − f_h)·(θ̂_(h1) − θ̂)², θ̂_(h1) being the estimate with the
// stratum's contribution dropped. Certainty strata (f_h = 1) add 0. The
// 95 % interval is θ̂ ± 1.96·SE, clipped to [0, 1] for the bounded measures
// (the estimate itself is not clipped, so means stay unbiased) and to
// [judged relevant, ∞) for R̂. Means over queries have SE = sqrt(Σ_q v_q)/Q:
// the uncertainty from sampling documents for this query set, not from
// sampling queries.
//
// Per-query intervals rest on a normal approximation that fails where a
// stratum's sample is expected to hold only a relevant document or two:
// when it holds none, the stratum's estimate and variance are both 0. A
// P@20 whose ranks 11–20 lie in a stratum sampled at 0.3 covered its
// truth in a third of the draws of a test; the same design's mean over 60
// queries covered it in 96 %. Read per-query intervals with care and the
// intervals of means over many queries with confidence.
//
// Pairs of runs are compared per measure with a paired t-test over the
// queries' estimates, Holm-corrected within each measure (alpha 0.05).
//
// # Rank correlation
//
// KendallTau is τ-b; TauAP is the AP correlation of Yilmaz, Aslam &
// Robertson (2008, "A new rank correlation coefficient for information
// retrieval", SIGIR), which counts swaps near the top more. Both serve the
// reusability test of Zobel (1998, "How reliable are the results of
// large-scale information retrieval experiments?", SIGIR): how far a run's
// rank moves when the documents only it contributed are removed.
package estimate
