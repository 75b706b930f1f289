package decompose

import (
	"strconv"
	"strings"

	"boolpool/server/decompose/learn"
)

// This file turns a query into what the learned decomposer sees: tokens of
// the normalised query, a coarse shape per token, the rules' own reading
// aligned to the tokens, and the feature strings of the template
// classifier and the span tagger.

// tagClasses are the segment classes of the span tagger: a positive or a
// negated atom.
func tagClasses() []string { return []string{"pos", "neg"} }

// Tag labels (see learn.Tagger): O, B-pos, I-pos, B-neg, I-neg.
const (
	labelO    = 0
	labelBPos = 1
	labelIPos = 2
	labelBNeg = 3
	labelINeg = 4
)

func labelName(l int) string {
	switch l {
	case labelBPos:
		return "B-pos"
	case labelIPos:
		return "I-pos"
	case labelBNeg:
		return "B-neg"
	case labelINeg:
		return "I-neg"
	}
	return "O"
}

// prepared is a query read for the learned decomposer.
type prepared struct {
	tokens []string // tokens of the normalised query (commas etc. split off)
	lower  []string
	shapes []string
	negAt  []bool // a negation cue occurs at or before the token
	rules  Result
	// ruleLabels are the rules' atoms aligned to the tokens as the gold
	// atoms are for training (the rules as a feature of the tagger).
	ruleLabels []int
}

// tokenize splits the normalised query on spaces and splits trailing
// commas, semicolons, colons and sentence marks off as their own tokens.
func tokenize(q string) []string {
	var out []string
	for _, w := range strings.Fields(q) {
		var tail []string
		for len(w) > 1 && strings.ContainsRune(",;:.?!", rune(w[len(w)-1])) {
			tail = append(tail, w[len(w)-1:])
			w = w[:len(w)-1]
		}
		if strings.ContainsRune(",;:.?!", rune(w[0])) && len(w) == 1 {
			out = append(out, w)
			continue
		}
		out = append(out, w)
		for i := len(tail) - 1; i >= 0; i-- {
			out = append(out, tail[i])
		}
	}
	return out
}

// connective reports whether a lower-case word is one of the words that
// join or negate atoms; the shape keeps such words themselves.
func connective(w string) bool {
	switch w {
	case "or", "and", "not", "but", "both", "also", "that", "are", "is", "which", "who", "were", "was",
		"either", "nor", "neither", "non", "except", "excluding", "without", "other", "than",
		"unrelated", "no", "yet", "as", "well", "those", "ones", "have", "common":
		return true
	}
	return false
}

// shapeOf is a token's coarse class: the connective itself, "," for
// punctuation, H head noun, L link word, Y year or decade, C capitalised,
// N non-…, m anything else.
func shapeOf(tok, lower string) string {
	switch {
	case connective(lower):
		return lower
	case strings.ContainsRune(",;:.?!", rune(tok[0])) && len(tok) == 1:
		return ","
	case strings.HasPrefix(lower, "non-") && !isNonException(lower):
		return "N"
	case isHeadWord(lower):
		return "H"
	case isLinkWord(lower):
		return "L"
	case isYear(lower):
		return "Y"
	case capitalized(tok):
		return "C"
	}
	return "m"
}

func isNegationCue(lower string) bool {
	switch lower {
	case "not", "except", "excluding", "exclude", "without", "unrelated", "non", "no":
		return true
	}
	return strings.HasPrefix(lower, "non-") && !isNonException(lower)
}

func prepare(query string) *prepared {
	p := &prepared{rules: Rules(query)}
	p.tokens = tokenize(normalize(query))
	p.lower = make([]string, len(p.tokens))
	p.shapes = make([]string, len(p.tokens))
	p.negAt = make([]bool, len(p.tokens))
	neg := false
	for i, t := range p.tokens {
		p.lower[i] = lowerASCII(t)
		p.shapes[i] = shapeOf(t, p.lower[i])
		if isNegationCue(p.lower[i]) || p.lower[i] == "other" && i+1 < len(p.lower) && lowerASCII(p.tokens[i+1]) == "than" {
			neg = true
		}
		p.negAt[i] = neg
	}
	p.ruleLabels = alignLabels(p.tokens, p.rules.Atoms, p.rules.Expression)
	return p
}

// tokenKeys are the content-token keys of one query token, as the atom
// scorer compares them ("Films" → "film"; "non-war" → "non", "war").
func tokenKeys(tok string) []string {
	if sub := wordSub(lowerASCII(tok)); sub != "" {
		tok = sub
	}
	return contentTokens(tok)
}

// alignLabels labels the tokens with the atoms they belong to, the
// training target of the tagger: a token whose content key occurs in
// exactly one atom belongs to it; a key shared by several atoms (a head
// noun) goes with its neighbour's atom; an unmatched word between two
// tokens of one atom, or next to one, joins it; a link word ("of",
// "about", "set") just before an atom's first token opens it. Runs of one
// atom become segments, B at their start; the atom's polarity in expr
// gives the class.
func alignLabels(tokens []string, atoms []string, expr interface{ Negated(int) bool }) []int {
	n := len(tokens)
	owner := make([]int, n)
	cands := make([][]int, n)
	keys := make([]map[string]bool, len(atoms))
	for j, a := range atoms {
		keys[j] = map[string]bool{}
		for _, k := range contentTokens(a) {
			keys[j][k] = true
		}
	}
	for i, t := range tokens {
		owner[i] = -1
		lt := lowerASCII(t)
		if connective(lt) && lt != "other" || len(t) == 1 && strings.ContainsRune(",;:.?!", rune(t[0])) {
			continue
		}
		for _, k := range tokenKeys(t) {
			for j := range atoms {
				if keys[j][k] && !containsInt(cands[i], j) {
					cands[i] = append(cands[i], j)
				}
			}
		}
		if len(cands[i]) == 1 {
			owner[i] = cands[i][0]
		}
	}
	// Shared keys: the nearest owned neighbour among the candidates, left
	// first.
	for i := range tokens {
		if owner[i] >= 0 || len(cands[i]) < 2 {
			continue
		}
		for d := 1; d < n && owner[i] < 0; d++ {
			for _, k := range []int{i - d, i + d} {
				if k >= 0 && k < n && owner[k] >= 0 && containsInt(cands[i], owner[k]) {
					owner[i] = owner[k]
					break
				}
			}
		}
		if owner[i] < 0 {
			owner[i] = cands[i][0]
		}
	}
	// Unmatched words inside one atom's run, or content words adjacent to
	// an atom, join it.
	for i := range tokens {
		if owner[i] >= 0 {
			continue
		}
		l, r := -1, -1
		for k := i - 1; k >= 0; k-- {
			if owner[k] >= 0 {
				l = owner[k]
				break
			}
		}
		for k := i + 1; k < n; k++ {
			if owner[k] >= 0 {
				r = owner[k]
				break
			}
		}
		lt := lowerASCII(tokens[i])
		punct := len(tokens[i]) == 1 && strings.ContainsRune(",;:.?!", rune(tokens[i][0]))
		switch {
		case l >= 0 && l == r && !punct && !isNegationCue(lt) && lt != "or":
			owner[i] = l
		case !connective(lt) && !punct && i > 0 && owner[i-1] >= 0 && !isLinkWord(lt):
			owner[i] = owner[i-1]
		}
	}
	// A link word just before an atom's run opens it ("of Utah").
	for i := n - 2; i >= 0; i-- {
		lt := lowerASCII(tokens[i])
		if owner[i] < 0 && owner[i+1] >= 0 && isLinkWord(lt) && lt != "that" && lt != "which" && lt != "who" &&
			(i == 0 || owner[i-1] != owner[i+1]) {
			owner[i] = owner[i+1]
		}
	}
	labels := make([]int, n)
	for i := range tokens {
		if owner[i] < 0 {
			continue
		}
		b, in := labelBPos, labelIPos
		if expr != nil && expr.Negated(owner[i]) {
			b, in = labelBNeg, labelINeg
		}
		if i > 0 && owner[i-1] == owner[i] {
			labels[i] = in
		} else {
			labels[i] = b
		}
	}
	return labels
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// cuePhrases are the connective phrases the template classifier looks
// for anywhere in the query.
func cuePhrases() []string {
	return []string{"that are also", "that are not", "but not", "both", "and", "or", "not", "non", "which are",
		"that are", "as well as", "also", "either", "neither", "without", "except", "excluding", "other than",
		"that is", "have in common", "are not", "but", "those", "unrelated"}
}

// templateFeatures are the template classifier's features of a query.
func templateFeatures(p *prepared) []string {
	fs := make([]string, 0, 8*len(p.tokens)+32)
	rt := p.rules.Template
	if rt == "" {
		rt = "none"
	}
	nneg := 0
	if p.rules.Expression != nil {
		nneg = len(p.rules.Expression.NegatedAtoms())
	}
	fs = append(fs, "rt="+rt, "rn="+strconv.Itoa(len(p.rules.Atoms)), "rneg="+strconv.Itoa(nneg))
	nh, nc, ny := 0, 0, 0
	var shape []string
	for i, l := range p.lower {
		fs = append(fs, "u="+l, "rt|u="+rt+"|"+l)
		prev := "<s>"
		if i > 0 {
			prev = p.lower[i-1]
		}
		fs = append(fs, "b="+prev+"_"+l)
		switch p.shapes[i] {
		case "H":
			nh++
		case "C":
			nc++
		case "Y":
			ny++
		}
		if len(shape) == 0 || shape[len(shape)-1] != p.shapes[i] {
			shape = append(shape, p.shapes[i])
		}
	}
	if len(p.lower) > 0 {
		fs = append(fs, "b="+p.lower[len(p.lower)-1]+"_</s>", "first="+p.lower[0])
	}
	full := strings.Join(shape, " ")
	fs = append(fs, "shape="+full, "rt|shape="+rt+"|"+full)
	padded := append(append([]string{"<s>"}, shape...), "</s>")
	for i := 0; i+2 < len(padded); i++ {
		fs = append(fs, "s3="+strings.Join(padded[i:i+3], " "))
	}
	for i := 0; i+1 < len(padded); i++ {
		fs = append(fs, "s2="+strings.Join(padded[i:i+2], " "))
	}
	fs = append(fs, "nh="+strconv.Itoa(min(nh, 4)), "nc="+strconv.Itoa(min(nc, 5)), "ny="+strconv.Itoa(min(ny, 2)),
		"len="+strconv.Itoa(min(len(p.tokens)/3, 6)), "rt|nh="+rt+"|"+strconv.Itoa(min(nh, 4)))
	lq := " " + strings.Join(p.lower, " ") + " "
	for _, c := range cuePhrases() {
		if strings.Contains(lq, " "+c+" ") || c == "non" && strings.Contains(lq, " non-") {
			fs = append(fs, "cue="+c, "rt|cue="+rt+"|"+c)
		}
	}
	fs = append(fs, structureFeatures(p)...)
	for i, a := range p.rules.Atoms {
		ws := words(a)
		pol := "p"
		if p.rules.Expression != nil && p.rules.Expression.Negated(i) {
			pol = "n"
		}
		var sh []string
		for _, w := range ws {
			s := shapeOf(w, lowerASCII(w))
			if len(sh) == 0 || sh[len(sh)-1] != s {
				sh = append(sh, s)
			}
		}
		fs = append(fs, "ra="+pol+"|"+strings.Join(sh, " "), "ralen="+pol+strconv.Itoa(min(len(ws), 8)))
	}
	return fs
}

// tokenFeatures are the tagger's features of each token, given the
// template the classifier chose: the template-free ones and those that
// name the template.
func tokenFeatures(p *prepared, template string) [][]string {
	out := make([][]string, len(p.tokens))
	collect := func(i int, key []byte) { out[i] = append(out[i], string(key)) }
	eachBaseTokenKey(p, collect)
	eachTemplateTokenKey(p, template, collect)
	return out
}

// taggerEmissions are the tagger's label scores of the tokens' features
// that each calls emit with (no feature strings are built).
func taggerEmissions(tg *learn.Tagger, n int, each func(emit func(i int, key []byte))) [][]float64 {
	em := tg.NewEmissions(n)
	each(func(i int, key []byte) { tg.AddFeature(em[i], key) })
	return em
}

// eachBaseTokenKey calls emit with each template-free tagger feature of
// each token; key is valid only during the call.
func eachBaseTokenKey(p *prepared, emit func(i int, key []byte)) {
	n := len(p.tokens)
	at := func(xs []string, i int) string {
		if i < 0 {
			return "<s>"
		}
		if i >= n {
			return "</s>"
		}
		return xs[i]
	}
	rl := func(i int) string {
		if i < 0 || i >= n {
			return "-"
		}
		return labelName(p.ruleLabels[i])
	}
	var b []byte
	for i := range p.tokens {
		key := func(parts ...string) {
			b = joinKey(b, parts...)
			emit(i, b)
		}
		w, s := p.lower[i], p.shapes[i]
		neg := "0"
		if p.negAt[i] {
			neg = "1"
		}
		suf := w
		if len(suf) > 3 {
			suf = suf[len(suf)-3:]
		}
		prev, next := at(p.lower, i-1), at(p.lower, i+1)
		ps, ns := at(p.shapes, i-1), at(p.shapes, i+1)
		key("bias")
		key("w=", w)
		key("p=", prev)
		key("n=", next)
		key("pp=", at(p.lower, i-2))
		key("nn=", at(p.lower, i+2))
		key("pw=", prev, "|", w)
		key("wn=", w, "|", next)
		key("s=", s)
		key("ps=", ps, "|", s)
		key("sn=", s, "|", ns)
		key("pss=", ps, "|", s, "|", ns)
		key("suf=", suf)
		key("neg=", neg)
		key("neg|s=", neg, "|", s)
		key("rl=", rl(i))
		key("rlp=", rl(i-1), "|", rl(i))
		key("rln=", rl(i), "|", rl(i+1))
	}
}

// eachTemplateTokenKey calls emit with each tagger feature of each token
// that names the template.
func eachTemplateTokenKey(p *prepared, template string, emit func(i int, key []byte)) {
	var b []byte
	for i := range p.tokens {
		key := func(parts ...string) {
			b = joinKey(b, parts...)
			emit(i, b)
		}
		s, neg := p.shapes[i], "0"
		if p.negAt[i] {
			neg = "1"
		}
		key("t=", template)
		key("t|s=", template, "|", s)
		key("t|rl=", template, "|", labelName(p.ruleLabels[i]))
		key("t|neg|s=", template, "|", neg, "|", s)
	}
}

// structureFeatures describe how many pieces a query has: the sequence of
// its connectives alone, counts of link words ("of", "in", "set"), of
// "and" and commas, of distinct head nouns, and the words before its first
// head noun (the modifiers that make an atom each).
func structureFeatures(p *prepared) []string {
	var conns []string
	nlink, nand, ncomma, pre := 0, 0, 0, -1
	heads := map[string]bool{}
	for i, l := range p.lower {
		switch s := p.shapes[i]; {
		case s == ",":
			ncomma++
		case s == "H":
			heads[l] = true
			if pre < 0 {
				pre = i
			}
		case s == "L":
			nlink++
		case connective(l):
			if l == "and" {
				nand++
			}
			if len(conns) == 0 || conns[len(conns)-1] != l {
				conns = append(conns, l)
			}
		}
	}
	if pre < 0 {
		pre = len(p.lower)
	}
	it := func(n, hi int) string { return strconv.Itoa(min(n, hi)) }
	fs := []string{
		"conns=" + strings.Join(conns, " "),
		"nlink=" + it(nlink, 4), "nand=" + it(nand, 3), "ncomma=" + it(ncomma, 3),
		"nheads=" + it(len(heads), 3), "pre=" + it(pre, 4),
		"nlink|nand=" + it(nlink, 4) + "|" + it(nand, 3),
		"pre|nlink=" + it(pre, 4) + "|" + it(nlink, 4),
	}
	for i := 0; i+1 < len(conns); i++ {
		fs = append(fs, "cb="+conns[i]+"_"+conns[i+1])
	}
	return fs
}

// joinKey is parts joined into b's storage, reused from key to key.
func joinKey(b []byte, parts ...string) []byte {
	b = b[:0]
	for _, x := range parts {
		b = append(b, x...)
	}
	return b
}
