// Package synth draws synthetic data with a known truth, for benchmarks and
// tests only (never the request path): labelling jobs from raters of known
// accuracy for the consensus estimators, and whole live projects (queries,
// runs, items, crowd votes) at a chosen scale for the live dashboards.
package synth
