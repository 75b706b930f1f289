// Package archtest holds the architecture test: the import rules that keep
// the request path free of the encoders and the dev tooling, and test
// fixtures out of every non-test file, the floors (at most 8, no cycle,
// the store on the leaves alone: floors_test.go), and the documentation check: every
// relative link of the Markdown pages (root, docs/, */README.md) resolves, and
// the README links every page of docs/. It has no code of its own.
package archtest
