// Package lexical is boolpool's BM25 engine: an in-memory inverted index over
// a project's documents (title + text), English analysis (lower-casing,
// Snowball stop words, Snowball English stemming), Okapi BM25 scoring with
// Lucene's idf, and the sparse term-weight vectors that the Boolean and
// sparse linear-algebra retrieval methods build on.
//
// The index is derived from Postgres (the documents table) and persisted
// there as one binary blob per project (see Encode / Decode and the store's
// lexical_indexes table), so stateless servers share it; `boolpool index`
// rebuilds it.
package lexical

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Analyzer turns text into index terms: split on anything that is not a
// letter or digit, lower-case, drop English stop words, Snowball-stem.
// It keeps a stem cache and is therefore not safe for concurrent use;
// create one per goroutine.
type Analyzer struct {
	cache map[string]string
}

// NewAnalyzer returns an analyzer with an empty stem cache.
func NewAnalyzer() *Analyzer { return &Analyzer{cache: map[string]string{}} }

// Analyze returns the terms of text in order (repeats kept).
func (a *Analyzer) Analyze(text string) []string {
	var out []string
	a.Each(text, func(t string) { out = append(out, t) })
	return out
}

// Each calls fn with every term of text in order.
func (a *Analyzer) Each(text string, fn func(term string)) {
	eachWord(text, func(w string) {
		if t, ok := a.term(w); ok {
			fn(t)
		}
	})
}

// eachWord calls fn with every maximal run of letters and digits of text.
func eachWord(text string, fn func(word string)) {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(text[start:])
	}
}

// stemCacheMax bounds a stem cache (surface words kept per analyzer).
const stemCacheMax = 1 << 20

func (a *Analyzer) term(word string) (string, bool) {
	if t, ok := a.cache[word]; ok {
		return t, t != ""
	}
	t := stem(word)
	if len(a.cache) < stemCacheMax {
		a.cache[word] = t
	}
	return t, t != ""
}

// stem is the index term of a surface word: "" for a stop word.
func stem(word string) string {
	lower := strings.ToLower(word)
	if english.IsStopWord(lower) {
		return ""
	}
	return english.Stem(lower, false)
}
