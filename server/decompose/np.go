package decompose

import "strings"

// isStrongStarter reports whether w always opens a new post-modifier
// ("Films set in Asia about psychic powers" has two).
func isStrongStarter(w string) bool {
	switch w {
	case "about", "set", "based", "shot", "filmed", "from", "found", "described", "published",
		"written", "featuring", "starring", "without", "directed", "produced", "native":
		return true
	}
	return false
}

// isWeakStarter reports whether w ("of", "in", …) opens a new post-modifier
// after a lower-case word; inside proper nouns ("Republic of the Congo")
// and after a verb ("set in") it continues the current one.
func isWeakStarter(w string) bool {
	switch w {
	case "of", "in", "on", "by", "with", "during":
		return true
	}
	return false
}

// isHabitatModifier reports whether w makes one Wikipedia category with a
// taxon and a place ("Endemic flora of Ghana", "Freshwater fish of
// Malaysia"), not an intersection.
func isHabitatModifier(w string) bool {
	switch w {
	case "endemic", "freshwater", "marine", "prehistoric", "extinct", "native", "fossil",
		"introduced", "invasive", "aquatic":
		return true
	}
	return false
}

// isYear reports whether w is a year or decade ("1991", "1990s", "1990's").
func isYear(w string) bool {
	w = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(w, "s"), "'"), "’")
	if len(w) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// nounPhrase is a category noun phrase taken apart: an optional leading
// year or decade, the other pre-modifiers, the head noun and the
// post-modifier segments ("set in Asia", "about psychic powers").
type nounPhrase struct {
	year  string
	pre   []string
	head  string
	posts [][]string
}

// parseNP analyses s; ok is false when s has no known head noun. With
// moveYear, a "from the 1980s" post-modifier of a work becomes its year.
func parseNP(s string, moveYear bool) (np nounPhrase, ok bool) {
	ws := words(s)
	h := headIndex(ws)
	if h < 0 {
		return np, false
	}
	np.head = ws[h]
	np.pre = ws[:h]
	if len(np.pre) > 0 && isYear(np.pre[0]) {
		np.year, np.pre = np.pre[0], np.pre[1:]
	}
	var seg []string
	post := ws[h+1:]
	for i, w := range post {
		lw := lowerASCII(strings.Trim(w, ",;:"))
		if i > 0 && len(seg) > 0 {
			prev := lowerASCII(post[i-1])
			prevLink := isLinkWord(prev)
			// A capitalised word mid-phrase is a name ("traditional Native
			// American medicine"), not a starter.
			if isStrongStarter(lw) && !prevLink && !capitalized(w) && prev != "works" && prev != "work" ||
				isWeakStarter(lw) && !prevLink && !capitalized(post[i-1]) && prev != "works" && prev != "work" && prev != "the" {
				np.posts = append(np.posts, seg)
				seg = nil
			}
		}
		seg = append(seg, w)
	}
	if len(seg) > 0 {
		np.posts = append(np.posts, seg)
	}
	// "Teen horror films from the 1980s" is "1980s teen horror films": a
	// time post-modifier of a work is its year.
	if moveYear && np.year == "" && isWorkHead(lowerASCII(np.head)) {
		for i, p := range np.posts {
			if y := yearModifier(p); y != "" {
				np.year = y
				np.posts = append(np.posts[:i:i], np.posts[i+1:]...)
				break
			}
		}
	}
	return np, true
}

// yearModifier returns the year of a "from/of/in (the) YEAR" segment.
func yearModifier(seg []string) string {
	n := len(seg)
	if n < 2 || n > 3 || !isYear(seg[n-1]) {
		return ""
	}
	switch lowerASCII(seg[0]) {
	case "from", "of", "in":
	default:
		return ""
	}
	if n == 3 && lowerASCII(seg[1]) != "the" {
		return ""
	}
	return seg[n-1]
}

func (np nounPhrase) preHead(withYear bool) string {
	ws := append([]string{}, np.pre...)
	if withYear && np.year != "" {
		ws = append([]string{np.year}, lowerFirstWord(ws)...)
	}
	return strings.Join(append(ws, np.head), " ")
}

func (np nounPhrase) postAtoms() []string {
	var out []string
	for _, p := range np.posts {
		out = append(out, np.head+" "+strings.Join(p, " "))
	}
	return out
}

// floraSplit splits plant taxa placed somewhere: Wikipedia has no
// "Rosales genera of Europe" or "Angiosperms of Manchuria", so such a
// phrase is the taxon AND "Flora of <place>". It returns nil otherwise.
func (np nounPhrase) floraSplit() []string {
	switch lowerASCII(np.head) {
	case "genera", "angiosperms", "eudicots", "monocots", "asterids", "rosids":
	default:
		return nil
	}
	if np.year != "" || len(np.posts) != 1 || len(np.posts[0]) < 2 {
		return nil
	}
	p := np.posts[0]
	switch lowerASCII(p[0]) {
	case "of", "from", "in":
	default:
		return nil
	}
	return []string{np.preHead(false), "Flora of " + strings.Join(p[1:], " ")}
}

func (np nounPhrase) capitalizedPre() bool {
	for _, w := range np.pre {
		if capitalized(w) {
			return true
		}
	}
	return false
}

// The splitting rules below were chosen by tabulating, on QUEST train, how
// often each phrase shape (year / pre-modifiers / post-modifiers) is one
// category or an intersection in each context; they are shape rules, not
// per-query answers.

// splitNegPositive splits the positive part of a negation query ("Crime
// novels set in the Middle Ages but not …") when it reads as two
// categories: pre-modifiers plus a post-modifier, two post-modifiers, three
// or more genre words on a work ("Jungle adventure sequel films"), or a
// year plus a proper adjective ("2000 English books").
func splitNegPositive(s string) []string {
	np, ok := parseNP(s, true)
	if !ok {
		return []string{s}
	}
	if sub := np.floraSplit(); sub != nil {
		return sub
	}
	if isTaxonHead(lowerASCII(np.head)) && len(np.pre) == 1 && isHabitatModifier(lowerASCII(np.pre[0])) {
		return []string{s}
	}
	hasPre := np.year != "" || len(np.pre) > 0
	switch {
	case hasPre && len(np.posts) >= 1:
		return append([]string{np.preHead(true)}, np.postAtoms()...)
	case np.year != "" && np.capitalizedPre():
		return []string{np.year + " " + np.head, np.preHead(false)}
	case len(np.posts) >= 2:
		return np.postAtoms()
	case np.year == "" && len(np.pre) >= 3 && isWorkHead(lowerASCII(np.head)) && !strings.Contains(lowerASCII(strings.Join(np.pre, " ")), " and "):
		// Stacked genres of a work ("Jungle adventure sequel films");
		// technical compounds ("ACPI power management software") are one
		// category.
		return []string{np.pre[0] + " " + np.head, strings.Join(np.pre[1:], " ") + " " + np.head}
	}
	return []string{s}
}

// splitSingle splits a query with no connective at all when its shape says
// intersection: a year with any other modifier, two or more pre-modifiers
// with a post-modifier, or several post-modifiers ("1974 books about the
// American Revolution", "British supernatural films set in hospitals").
// One-category shapes such as "Horror films from Serbia" stay whole.
func splitSingle(s string) []string {
	np, ok := parseNP(s, false)
	if !ok {
		return []string{s}
	}
	if sub := np.floraSplit(); sub != nil {
		return sub
	}
	// A "from 1976" post-modifier folds into the first category ("Teen
	// drama films from the 1980s about abortion" → "1980s teen drama
	// films", "Films about abortion"); on its own it is part of one
	// category name as often as not ("Crime drama films from 1976").
	if np.year == "" {
		for i, p := range np.posts {
			y := yearModifier(p)
			if y == "" {
				continue
			}
			np.year = y
			np.posts = append(np.posts[:i:i], np.posts[i+1:]...)
			switch {
			case len(np.posts) >= 1 && len(np.pre) >= 1 || len(np.posts) >= 2:
				return append([]string{np.preHead(true)}, np.postAtoms()...)
			case len(np.pre) >= 3:
				// Many modifiers and a year: "Superhero comedy short films
				// from the 1940s".
				return []string{np.preHead(false), y + " " + np.head}
			}
			return []string{s}
		}
	}
	switch {
	case np.year != "" && len(np.pre) >= 2 && len(np.posts) == 1,
		np.year != "" && len(np.pre) == 1 && capitalized(np.pre[0]) && len(np.posts) == 1:
		// "1939 Irish novels set in Europe": year, nationality and setting.
		return append([]string{np.year + " " + np.head, np.preHead(false)}, np.postAtoms()...)
	case np.year != "" && len(np.pre) >= 3 && np.capitalizedPre() && len(np.posts) == 0:
		return []string{np.year + " " + np.head, np.pre[0] + " " + np.head, strings.Join(np.pre[1:], " ") + " " + np.head}
	case np.year != "" && len(np.posts) >= 1:
		return append([]string{np.preHead(true)}, np.postAtoms()...)
	case np.year != "" && len(np.pre) >= 1:
		return []string{np.year + " " + np.head, np.preHead(false)}
	case len(np.pre) >= 2 && len(np.posts) >= 1:
		return append([]string{np.preHead(false)}, np.postAtoms()...)
	case len(np.pre) >= 1 && len(np.posts) >= 2:
		return append([]string{np.preHead(false)}, np.postAtoms()...)
	case len(np.posts) >= 2:
		return np.postAtoms()
	}
	return []string{s}
}

// splitConjunct splits one conjunct of a two-way AND that itself carries
// pre- and post-modifiers, turning A AND B into the three-way AND it usually
// is ("1990s history books about Asia that are military books"), except
// for taxa.
func splitConjunct(s string) []string {
	np, ok := parseNP(s, false)
	if ok {
		if sub := np.floraSplit(); sub != nil {
			return sub
		}
	}
	if !ok || len(np.posts) == 0 || np.year == "" && len(np.pre) == 0 || isTaxonHead(lowerASCII(np.head)) {
		// Taxon names with a modifier and a place ("Endemic fauna of New
		// Zealand") are as often one category as two.
		return []string{s}
	}
	return append([]string{np.preHead(true)}, np.postAtoms()...)
}
