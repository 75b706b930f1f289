package decompose

import (
	"strconv"
	"strings"
)

// This file gives the template classifier what the wording of a query
// cannot: whether a phrase is a category name. "2001 sexploitation films"
// is two QUEST categories ("2001 films", "Sexploitation films") while "1992
// drama films" is one; only the inventory of category names tells them
// apart. The lexicon is the set of gold atoms of the training queries,
// keyed by their content tokens with years and decades replaced by "#".

// lexKey is the lexicon key of a category name or phrase.
func lexKey(s string) string {
	ws := contentTokens(s)
	for i, w := range ws {
		if isYear(w) || isYear(w+"s") {
			ws[i] = "#"
		}
	}
	return strings.Join(ws, " ")
}

// lexiconFeatures describe the rules' atoms by the lexicon: whether each
// is a known category, and how many of the pieces it could be cut into
// (its year, each pre-modifier, each post-modifier, with the head noun)
// are known categories themselves.
func lexiconFeatures(p *prepared, known func(key string) bool) []string {
	rt := p.rules.Template
	if rt == "" {
		rt = "none"
	}
	var fs []string
	nknown := 0
	for i, a := range p.rules.Atoms {
		pol := "p"
		if p.rules.Expression != nil && p.rules.Expression.Negated(i) {
			pol = "n"
		}
		shape, isKnown := atomLexShape(a, known)
		if isKnown {
			nknown++
		}
		shape = pol + "|" + shape
		fs = append(fs, "lx="+shape, "rt|lx="+rt+"|"+shape)
	}
	all := strconv.Itoa(nknown) + "/" + strconv.Itoa(len(p.rules.Atoms))
	fs = append(fs, "lxn="+all, "rt|lxn="+rt+"|"+all)
	return fs
}

// atomLexShape is "K|S/P" for an atom: K whether it is a known category
// (1/0), P how many pieces it could be cut into (its year, each
// pre-modifier, each post-modifier, with the head noun; at most 3), S how
// many of those, or of its pre-modifiers together, are known categories
// (at most 3).
func atomLexShape(a string, known func(key string) bool) (shape string, isKnown bool) {
	k := "0"
	if known(lexKey(a)) {
		k, isKnown = "1", true
	}
	pieces, sub := 0, 0
	if np, ok := parseNP(a, true); ok {
		head := np.head
		if np.year != "" {
			pieces++
			if known(lexKey(np.year + " " + head)) {
				sub++
			}
		}
		for _, m := range np.pre {
			pieces++
			if known(lexKey(m + " " + head)) {
				sub++
			}
		}
		if len(np.pre) > 1 && known(lexKey(strings.Join(np.pre, " ")+" "+head)) {
			sub++
		}
		for _, post := range np.posts {
			pieces++
			if known(lexKey(head + " " + strings.Join(post, " "))) {
				sub++
			}
		}
	}
	return k + "|" + strconv.Itoa(min(sub, 3)) + "/" + strconv.Itoa(min(pieces, 3)), isKnown
}
