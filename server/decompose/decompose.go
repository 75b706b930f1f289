// Package decompose turns a free-text Boolean query ("birds of the
// Venezuelan Andes but not of Colombia") into a boolexpr expression over
// atom phrases and, where it fits, one of QUEST's seven templates. It is a
// rule-based splitter on connectives (or / and / that are also / but not /
// that are not / excluding / except / without / other than / unrelated to /
// not / non-…) with head-noun sharing between conjuncts, so that atoms read
// like QUEST's marked category names. Researchers correct its output in the
// UI; Evaluate measures it against QUEST's gold templates and atoms.
package decompose

import (
	"strings"

	"boolpool/server/boolexpr"
)

// Result is a decomposed query. Template is one of QUEST's template names,
// or empty when the expression fits none (e.g. four disjuncts).
// Confidence (0–1) is the learned decomposer's certainty (see
// Model.Decompose); Source says which decomposer produced the result.
type Result struct {
	Template   string         `json:"template"`
	Expression *boolexpr.Expr `json:"expression"`
	Atoms      []string       `json:"atoms"`
	Confidence float64        `json:"confidence"`
	Source     string         `json:"source"`
}

// Sources of a Result.
const (
	SourceRules = "rules" // the hand-written rules of this file
	SourceModel = "model" // the learned template classifier and span tagger
)

// Rules splits query into atoms and an expression by the hand-written
// rules. It never fails: a query without connectives is a single atom.
// Its Confidence is 0 (the rules have no measure of it).
func Rules(query string) Result {
	q := normalize(query)
	if q == "" {
		return Result{Template: boolexpr.TemplateSingle, Expression: boolexpr.Atom(0), Atoms: []string{""}, Source: SourceRules}
	}
	if pos, neg, ok := splitNegation(q); ok {
		parts, viaAnd := splitAnd(pos, 2)
		conj := mergeAdjectives(shareHeads(parts, false, viaAnd), viaAnd)
		if len(conj) == 1 {
			conj = splitNegPositive(conj[0])
		}
		positives := dedupe(conj)
		positive := boolexpr.Atom(0)
		if len(positives) > 1 {
			positive = nary(boolexpr.OpAnd, len(positives))
		}
		// "but not Y or Z" excludes both: NOT (Y OR Z).
		var negs []string
		for _, n := range splitPhrase(neg, "or") {
			if n = clean(n); n != "" {
				negs = append(negs, borrowHead(n, conj[0]))
			}
		}
		negs = dedupe(negs)
		atoms := append(positives, negs...)
		negated := boolexpr.Atom(len(positives))
		if len(negs) > 1 {
			args := make([]*boolexpr.Expr, len(negs))
			for i := range negs {
				args[i] = boolexpr.Atom(len(positives) + i)
			}
			negated = boolexpr.Or(args...)
		}
		return result(boolexpr.And(positive, boolexpr.Not(negated)), atoms)
	}
	// An explicit "that are also" makes the query a conjunction; an "or"
	// in it belongs to an atom ("packages containing TeX or LaTeX
	// documents that are also fonts"). QUEST never mixes the two.
	if parts := splitOr(q); len(parts) >= 2 && findPhrase(q, "that are also", 0) < 0 {
		return flat(boolexpr.OpOr, shareHeads(parts, true, nil))
	}
	parts, viaAnd := splitAnd(q, 3)
	parts = mergeAdjectives(shareHeads(parts, false, viaAnd), viaAnd)
	switch len(parts) {
	case 1:
		parts = splitSingle(parts[0])
	case 2:
		for i, p := range parts {
			if sub := splitConjunct(p); len(sub) > 1 {
				parts = append(append(append([]string{}, parts[:i]...), sub...), parts[i+1:]...)
				break
			}
		}
	}
	return flat(boolexpr.OpAnd, parts)
}

// flat builds a single atom or an n-ary AND/OR over the distinct canonical
// atoms ("Flora or plants of the Gambia" is one atom).
func flat(op boolexpr.Op, parts []string) Result {
	atoms := dedupe(parts)
	if len(atoms) == 1 {
		return result(boolexpr.Atom(0), atoms)
	}
	return result(nary(op, len(atoms)), atoms)
}

// dedupe canonicalises atoms and drops repeats (case-insensitively).
func dedupe(parts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		c := canonical(p)
		if k := lowerASCII(c); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// mergeAdjectives folds a one-word conjunct without a head noun, joined by
// a relative clause, into the previous conjunct as a modifier: "Adventure
// films that are dutch" is the single category "Dutch adventure films",
// "Hemiptera that are extinct" is "Extinct Hemiptera".
func mergeAdjectives(parts []string, viaAnd []bool) []string {
	out := []string{}
	for i, p := range parts {
		ws := words(p)
		if len(out) > 0 && !viaAnd[i] && len(ws) == 1 && !isHeadWord(ws[0]) && !strings.HasSuffix(lowerASCII(ws[0]), "s") {
			out[len(out)-1] = upperFirst(ws[0]) + " " + lowerFirstWord(words(out[len(out)-1]))[0] + restWords(out[len(out)-1])
			continue
		}
		out = append(out, p)
	}
	return out
}

// restWords returns s without its first word, with a leading space, or "".
func restWords(s string) string {
	ws := words(s)
	if len(ws) < 2 {
		return ""
	}
	return " " + strings.Join(ws[1:], " ")
}

func nary(op boolexpr.Op, n int) *boolexpr.Expr {
	args := make([]*boolexpr.Expr, n)
	for i := range args {
		args[i] = boolexpr.Atom(i)
	}
	return &boolexpr.Expr{Op: op, Args: args}
}

// result wraps an expression over already canonical atoms.
func result(e *boolexpr.Expr, atoms []string) Result {
	t, _ := boolexpr.TemplateOf(e)
	return Result{Template: t, Expression: e, Atoms: atoms, Source: SourceRules}
}

// questionPrefixes returns the openings people put before the actual category
// ("what are some …", "find me …"); they are never part of an atom.
func questionPrefixes() []string {
	return []string{
		"what are some of the ", "what are some ", "what are the ", "what are ", "what is ", "what were ",
		"which are ", "which ", "what ", "find me ", "find ", "list of ", "list ", "show me ",
		"give me ", "i want ", "i need ", "looking for ", "search for ", "name some ", "name ",
		"are there any ", "are there ", "can you find ", "can you list ", "please list ",
		"tell me ", "some ", "any ", "all ",
	}
}

// normalize trims question wording and punctuation and expands
// contractions so the splitters see plain connectives.
func normalize(q string) string {
	q = clean(q)
	for changed := true; changed; {
		changed = false
		lq := lowerASCII(q)
		for _, p := range questionPrefixes() {
			// The prefix ends in a space; a comma or colon ends it too
			// ("find me, Cisuralian animals").
			p = strings.TrimSuffix(p, " ")
			if strings.HasPrefix(lq, p) && len(q) > len(p)+1 && strings.ContainsRune(" ,:", rune(q[len(p)])) {
				q = clean(q[len(p)+1:])
				changed = true
				break
			}
		}
	}
	for _, c := range [][2]string{
		{"aren't", "are not"}, {"arent", "are not"}, {"isn't", "is not"}, {"weren't", "were not"},
		{"wasn't", "was not"}, {"don't", "do not"}, {"doesn't", "does not"}, {"didn't", "did not"},
		{"aren’t", "are not"}, {"isn’t", "is not"}, {"don’t", "do not"}, {"doesn’t", "does not"},
		{"can't", "can not"}, {"cannot", "can not"}, {"can’t", "can not"}, {"won't", "will not"},
		{"and/or", "or"},
		// "Plants that are only found in Ghana" is QUEST's "Endemic flora
		// of Ghana"; one marker keeps the splitters off "that are".
		{"that can only be found in", "endemic to"}, {"that are only found in", "endemic to"},
		{"that are found only in", "endemic to"}, {"only found in", "endemic to"},
		{"found only in", "endemic to"}, {"that only grow in", "endemic to"}, {"only from", "endemic to"},
		{"plant species", "plants"}, {"animal species", "animals"}, {"plant life", "plants"},
		{"animal life", "animals"}, {"wildlife", "animals"},
	} {
		q = replacePhrase(q, c[0], c[1])
	}
	return clean(inCommon(q))
}

// inCommon rewrites "Plants (that) Afghanistan and Israel have in common"
// as "Plants of Afghanistan and Israel", which the conjunction rules then
// split with a shared head.
func inCommon(q string) string {
	i := findPhrase(q, "have in common", 0)
	if i <= 0 {
		return q
	}
	before, after := clean(q[:i]), q[i+len("have in common"):]
	ws := words(before)
	h := headIndex(ws)
	if h < 0 || h == len(ws)-1 {
		return q
	}
	rest := ws[h+1:]
	if lw := lowerASCII(rest[0]); lw == "that" || lw == "which" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return q
	}
	out := append(append(append([]string{}, ws[:h+1]...), "of"), rest...)
	return strings.Join(out, " ") + after
}

// clauseNegations introduce a negated atom at clause level; phraseNegations
// ("without", "not") may also sit inside a category name ("Films without
// speech"), so a clause-level marker anywhere wins over them. Among markers
// of one kind the earliest match wins and, at the same position, the longer
// one ("but not" over "not").
func clauseNegations() []string {
	return []string{
		"but not", "but are not", "but is not", "but also not", "but which are not", "but that are not",
		"that are not also", "are not also", "that are not", "which are not", "that were not", "who are not",
		"that is not", "which is not", "and not", "and are not", "excluding", "exclude", "except for",
		"except", "with the exception of", "other than", "unrelated to", "not related to", "apart from",
		"aside from", "not including", "but no",
	}
}

// phraseNegations are the negation markers that may sit inside a category
// name (see clauseNegations).
func phraseNegations() []string {
	return []string{
		"that can not be", "can not be", "that can not", "can not", "are not", "is not", "were not",
		"that do not", "that does not", "do not", "does not", "without", "not",
	}
}

// findMarker returns the position and length of the earliest (then
// longest) marker in q, or -1.
func findMarker(q string, markers []string) (at, n int) {
	lq := lowerASCII(q)
	at = -1
	for _, m := range markers {
		i := findLower(lq, m, 0)
		if i < 0 {
			continue
		}
		if at < 0 || i < at || i == at && len(m) > n {
			at, n = i, len(m)
		}
	}
	return at, n
}

// isNonException reports whether w starts with non- but does not negate.
func isNonException(w string) bool {
	switch w {
	case "non-fiction", "nonfiction", "non-profit", "nonprofit", "non-governmental", "non-linear",
		"non-stop":
		return true
	}
	return false
}

// splitNegation finds the negated part of q. pos is the positive remainder.
func splitNegation(q string) (pos, neg string, ok bool) {
	best, bestLen := findMarker(q, clauseNegations())
	if best <= 0 {
		best, bestLen = findMarker(q, phraseNegations())
	}
	if best > 0 {
		pos, neg = trimConnectives(q[:best]), clean(q[best+bestLen:])
		// "Novels not set in the 1930s that are about poverty": the relative
		// clause after the negated phrase belongs to the positive part.
		// A bare head ("Novels") takes the clause as its modifier; anything
		// else gets it as one more conjunct ("Trees of New Guinea but not
		// Malesia that are also Pantropical flora").
		for _, rel := range []string{"that are also", "that are", "which are", "that"} {
			if j := findPhrase(neg, rel, 0); j > 0 {
				if ws := words(pos); len(ws) == 1 && isHeadWord(ws[0]) {
					pos = clean(pos + " " + neg[j+len(rel):])
				} else {
					pos = clean(pos + " that are also " + neg[j+len(rel):])
				}
				neg = clean(neg[:j])
				break
			}
		}
		if pos != "" && neg != "" {
			return pos, neg, true
		}
	}
	return splitNon(q)
}

// danglingConnectives returns the words left at the end of the positive
// part when the negation marker follows them ("… but is unrelated to …").
func danglingConnectives() []string {
	return []string{"but", "and", "or", "is", "are", "were", "which", "that", "who", "also", "yet"}
}

// trimConnectives cleans s and drops trailing connective words.
func trimConnectives(s string) string {
	ws := words(clean(s))
	for len(ws) > 1 {
		last := lowerASCII(strings.Trim(ws[len(ws)-1], ",;:"))
		found := false
		for _, c := range danglingConnectives() {
			if last == c {
				found = true
				break
			}
		}
		if !found {
			break
		}
		ws = ws[:len(ws)-1]
	}
	return clean(strings.Join(ws, " "))
}

// splitNon handles a "non-X" / "non X" modifier: "Non-war novels set in the
// 1810s" is "novels set in the 1810s" AND NOT "war novels".
func splitNon(q string) (pos, neg string, ok bool) {
	ws := words(q)
	for i, w := range ws {
		lw := lowerASCII(strings.Trim(w, ",;:"))
		var x string
		rest := ws[i+1:]
		switch {
		case isNonException(lw):
			continue
		case strings.HasPrefix(lw, "non-") && len(lw) > 4:
			x = w[4:]
		case lw == "non" && len(rest) > 0:
			x, rest = rest[0], rest[1:]
		default:
			continue
		}
		posWords := append(append([]string{}, ws[:i]...), rest...)
		pos = clean(strings.Join(posWords, " "))
		if pos == "" {
			return "", "", false
		}
		neg = x
		if h := headIndex(rest); h >= 0 {
			neg = x + " " + strings.Join(rest[:h+1], " ")
		} else if len(rest) > 0 {
			neg = x + " " + strings.Join(rest, " ")
		}
		return pos, clean(neg), true
	}
	return "", "", false
}

// splitOr splits a disjunction, including comma lists ("A, B, or C").
func splitOr(q string) []string {
	if i := findPhrase(q, "either", 0); i >= 0 {
		before := lowerASCII(clean(q[:i]))
		if strings.HasSuffix(before, " that are") || strings.HasSuffix(before, " which are") ||
			strings.HasSuffix(before, " that is") || before == "" {
			q = q[i+len("either"):]
		} else {
			q = q[:i] + q[i+len("either"):]
		}
	}
	raw := splitPhrase(q, "or")
	if len(raw) < 2 {
		return []string{clean(q)}
	}
	var parts []string
	for _, r := range raw {
		for _, c := range strings.Split(r, ",") {
			if c = clean(c); c != "" {
				parts = append(parts, c)
			}
		}
	}
	return parts
}

// andMarkers returns the phrases that join conjuncts: relative clauses
// first, then plain "and".
func andMarkers() []string {
	return []string{
		"that are also both", "that are both", "which are also both", "that are also", "which are also",
		"and are also", "that are", "which are", "that were", "who are", "that is", "which is",
		"and also", "that also", "as well as", "and", "also",
	}
}

// splitAnd splits a conjunction into its conjuncts. viaAnd[i] is true when
// conjunct i was joined by a plain "and" or a list comma rather than by a
// relative clause ("that are also"): such a conjunct often lost the head
// and preposition it shares with its neighbour ("Films about security and
// surveillance").
func splitAnd(q string, maxParts int) (parts []string, viaAnd []bool) {
	lq := lowerASCII(q)
	// next[k] caches the next occurrence of andMarkers[k] after pos, so the
	// scan stays linear in the query length times the number of markers.
	markers := andMarkers()
	next := make([]int, len(markers))
	for k, m := range markers {
		next[k] = findLower(lq, m, 1)
	}
	add := func(text string, and bool) {
		if p := dropBoth(clean(text)); p != "" {
			parts = append(parts, p)
			viaAnd = append(viaAnd, and)
		}
	}
	pos, from := 0, 0
	prevAnd, afterBoth := false, false
	for {
		best, bestLen := -1, 0
		for k, m := range markers {
			if next[k] >= 0 && next[k] <= from {
				next[k] = findLower(lq, m, from+1)
			}
			i := next[k]
			if i < 0 {
				continue
			}
			if best < 0 || i < best || i == best && len(m) > bestLen {
				best, bestLen = i, len(m)
			}
		}
		if best < 0 {
			break
		}
		chunk := q[pos:best]
		isAnd := lq[best:best+bestLen] == "and"
		if isAnd && coordinatedModifier(chunk, afterBoth) {
			// "time and clock software": the "and" is inside one atom.
			from = best + bestLen
			continue
		}
		if isAnd {
			// "A, B, and C": the commas before a plain "and" separate
			// conjuncts.
			for i, c := range strings.Split(chunk, ",") {
				add(c, prevAnd || i > 0)
			}
		} else {
			add(chunk, prevAnd)
		}
		prevAnd = isAnd
		afterBoth = strings.HasSuffix(lq[best:best+bestLen], "both")
		pos = best + bestLen
		from = pos
	}
	add(q[pos:], prevAnd)
	if len(parts) == 0 {
		return []string{clean(q)}, []bool{false}
	}
	return dropBareHead(parts, viaAnd, maxParts)
}

// dropBareHead removes a leading conjunct that is only a head noun when
// there are more than maxParts ("Novels that are 1940s children's books,
// travel books, and set on ships"): it then adds no constraint of its own,
// but conjuncts that start with a link word ("set on ships") take it as
// their head. With fewer conjuncts the bare noun is a category in its own
// right ("Mammals that are also Cetaceans"), unless the next conjunct
// starts with a link word and so needs it as its head.
func dropBareHead(parts []string, viaAnd []bool, maxParts int) ([]string, []bool) {
	if len(parts) < 2 {
		return parts, viaAnd
	}
	ws := words(parts[0])
	if len(ws) != 1 || !isHeadWord(ws[0]) {
		return parts, viaAnd
	}
	// "Fish that are from both Macaronesia and the Atlantic Ocean": the
	// bare head is the head of the next conjunct, not a conjunct.
	nws := words(parts[1])
	modifies := isLinkWord(lowerASCII(nws[0])) && headIndex(nws) < 0
	if len(parts) <= maxParts && !modifies {
		return parts, viaAnd
	}
	head := parts[0]
	var out []string
	for _, p := range parts[1:] {
		if fw := firstWord(p); isLinkWord(fw) && fw != "that" && fw != "which" && fw != "who" {
			p = head + " " + p
		}
		out = append(out, p)
	}
	flags := append([]bool{}, viaAnd[1:]...)
	flags[0] = false
	return out, flags
}

// coordinatedModifier reports whether the text before an "and" is a bare
// modifier or noun without a head, place or link word ("time" in "time
// and clock software", "toys" in "toys and gimmicks"): then the "and"
// joins two words of one category name rather than two conjuncts.
func coordinatedModifier(chunk string, afterBoth bool) bool {
	ws := words(clean(chunk))
	if len(ws) == 0 || len(ws) > 2 || strings.Contains(chunk, ",") {
		return false
	}
	if hasHead(chunk) || isLinkWord(lowerASCII(ws[0])) || properNoun(ws) {
		return false
	}
	// After "both", a plural ("both debuggers and source code tools") is a
	// category of its own; elsewhere "toys and gimmicks" is one.
	return !(afterBoth && pluralLike(ws[len(ws)-1]))
}

// dropBoth removes a "both" left over from "both X and Y".
func dropBoth(s string) string {
	if i := findPhrase(s, "both", 0); i >= 0 {
		return clean(s[:i] + s[i+len("both"):])
	}
	return s
}

// linkIndex returns the word index of the first link word after the first
// word, or -1.
func linkIndex(ws []string) int {
	for i := 1; i < len(ws); i++ {
		if isLinkWord(lowerASCII(strings.Trim(ws[i], ",;:"))) {
			return i
		}
	}
	return -1
}

// lastLinkIndex returns the word index of the last link word, or -1.
func lastLinkIndex(ws []string) int {
	for i := len(ws) - 1; i >= 1; i-- {
		if isLinkWord(lowerASCII(strings.Trim(ws[i], ",;:"))) {
			return i
		}
	}
	return -1
}

// headOf returns the category head of a phrase: the words before its first
// link word ("Novels" of "Novels set in Vietnam"), or its head noun phrase.
func headOf(s string) string {
	ws := words(s)
	if l := linkIndex(ws); l > 0 {
		return strings.Join(ws[:l], " ")
	}
	if h := headIndex(ws); h >= 0 {
		return ws[h]
	}
	return ""
}

// borrowHead completes a conjunct that lost its head noun to a neighbour:
// "about disasters" after "Novels set in Vietnam" becomes "Novels about
// disasters"; "Tlaxcala" after "Flora of Morelos" becomes "Flora of
// Tlaxcala"; "American horror" after "Films based on …" becomes "American
// horror films".
func borrowHead(part, from string) string {
	ws := words(part)
	if len(ws) == 0 {
		return part
	}
	fw := lowerASCII(ws[0])
	// "other than those of Colombia": the pronoun stands for the head.
	if (fw == "those" || fw == "ones") && len(ws) > 1 {
		if h := headOf(from); h != "" {
			return h + " " + strings.Join(ws[1:], " ")
		}
	}
	if isLinkWord(fw) && fw != "that" && fw != "which" && fw != "who" && headIndex(ws) < 0 {
		if h := headOf(from); h != "" {
			return h + " " + part
		}
		return part
	}
	if hasHead(part) {
		return part
	}
	fws := words(from)
	if l := lastLinkIndex(fws); l > 0 && properNoun(ws) {
		return strings.Join(fws[:l+1], " ") + " " + part
	}
	if h := headIndex(fws); h >= 0 && !pluralLike(ws[len(ws)-1]) {
		return part + " " + lowerASCII(fws[h])
	}
	return part
}

// pluralLike reports whether w looks like a plural noun ("plugins",
// "interpreters"): such a conjunct names a category by itself, without a
// borrowed head noun.
func pluralLike(w string) bool {
	lw := lowerASCII(strings.Trim(w, ",;:.()"))
	if len(lw) < 4 || !strings.HasSuffix(lw, "s") {
		return false
	}
	for _, suf := range []string{"ss", "us", "is", "ics", "'s", "’s"} {
		if strings.HasSuffix(lw, suf) {
			return false
		}
	}
	return true
}

// borrowHeadPrefix is borrowHead, except that with shared a head-less
// conjunct takes the neighbour's prefix up to its last link word whatever
// its case ("Films about security and surveillance" → "Films about
// surveillance").
func borrowHeadPrefix(part, from string, shared bool) string {
	ws, fws := words(part), words(from)
	if shared && len(ws) > 0 && !isLinkWord(lowerASCII(ws[0])) && !hasHead(part) {
		if l := lastLinkIndex(fws); l > 0 {
			return strings.Join(fws[:l+1], " ") + " " + part
		}
	}
	return borrowHead(part, from)
}

// properNoun reports whether every word but short function words is
// capitalised ("Democratic Republic of the Congo", "Peru", "1948"): a place
// or name that needs the neighbour's "Flora of" / "Films set in".
func properNoun(ws []string) bool {
	for _, w := range ws {
		switch lowerASCII(w) {
		case "the", "of", "and", "de", "la", "del":
			continue
		}
		if !capitalized(w) {
			return false
		}
	}
	return len(ws) > 0
}

// shareHeads completes head-less conjuncts from their neighbours: later
// ones borrow the head of an earlier one ("Orchids of Argentina, French
// Guiana or Guyana"), an early adjective-only one borrows the tail of the
// next ("Dutch or Swiss war films").
func shareHeads(parts []string, disjunction bool, viaAnd []bool) []string {
	out := append([]string{}, parts...)
	for i := 1; i < len(out); i++ {
		ws := words(out[i])
		fw := firstWord(out[i])
		headless := !hasHead(out[i]) && linkIndex(ws) < 0 && lastLinkIndex(words(out[i-1])) > 0
		// After a plain "and" even a lower-case topic shares the
		// neighbour's "Films about".
		shared := i < len(viaAnd) && viaAnd[i]
		if isLinkWord(fw) && headIndex(ws) < 0 || headless && (properNoun(ws) || shared) {
			out[i] = borrowHeadPrefix(out[i], out[i-1], shared)
		}
	}
	if !disjunction {
		// In a conjunction a head-less conjunct is usually a category name
		// of its own ("Arecaceae that are trees of Indo-China").
		return out
	}
	for i := len(out) - 2; i >= 0; i-- {
		ws := words(out[i])
		if hasHead(out[i]) || linkIndex(ws) >= 0 {
			// A bare head ("Birds or Endemic fauna of Grenada") borrows the
			// next conjunct's modifier.
			if len(ws) == 1 && linkIndex(ws) < 0 {
				nws := words(out[i+1])
				if l := linkIndex(nws); l > 0 {
					out[i] = out[i] + " " + strings.Join(nws[l:], " ")
				}
			}
			continue
		}
		nws := words(out[i+1])
		h := headIndex(nws)
		if h < 0 || pluralLike(ws[len(ws)-1]) {
			continue
		}
		if len(ws) == 1 && h >= 1 {
			out[i] = out[i] + " " + strings.Join(nws[1:], " ")
		} else {
			out[i] = out[i] + " " + strings.Join(nws[h:], " ")
		}
	}
	return out
}
