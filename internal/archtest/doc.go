// Package archtest holds the architecture test: the import rules that keep
// the request path free of the encoders and the dev tooling, and test
// fixtures out of every non-test file. It has no code of its own.
package archtest
