package decompose

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lowerASCII lower-cases only ASCII letters, so byte offsets found in the
// result are valid in the original string (strings.ToLower may change the
// byte length of some non-ASCII letters).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isBoundary reports whether the byte before/after a match ends a word.
func isBoundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '\'' || c >= 0x80)
}

// findPhrase returns the byte index of the first whole-word, case-insensitive
// occurrence of phrase (lower case) in s at or after from, or -1.
func findPhrase(s, phrase string, from int) int {
	return findLower(lowerASCII(s), phrase, from)
}

// findLower is findPhrase on an already lower-cased string, so callers that
// search one string many times lower-case it once.
func findLower(ls, phrase string, from int) int {
	if phrase == "" {
		return -1
	}
	for from <= len(ls) {
		j := strings.Index(ls[from:], phrase)
		if j < 0 {
			return -1
		}
		j += from
		if isBoundary(ls, j-1) && isBoundary(ls, j+len(phrase)) {
			return j
		}
		from = j + 1
	}
	return -1
}

// splitPhrase splits s at every whole-word occurrence of phrase.
func splitPhrase(s, phrase string) []string {
	ls := lowerASCII(s)
	var parts []string
	start := 0
	for {
		i := findLower(ls, phrase, start)
		if i < 0 {
			return append(parts, s[start:])
		}
		parts = append(parts, s[start:i])
		start = i + len(phrase)
	}
}

// replacePhrase replaces every whole-word, case-insensitive occurrence of
// old (lower case) in s by repl.
func replacePhrase(s, old, repl string) string {
	ls := lowerASCII(s)
	var b strings.Builder
	start := 0
	for {
		i := findLower(ls, old, start)
		if i < 0 {
			b.WriteString(s[start:])
			return b.String()
		}
		b.WriteString(s[start:i])
		b.WriteString(repl)
		start = i + len(old)
	}
}

// clean trims spaces and the punctuation that separates clauses.
func clean(s string) string {
	return strings.Trim(strings.Join(strings.Fields(s), " "), " ,;:.?!")
}

func words(s string) []string { return strings.Fields(s) }

func firstWord(s string) string {
	w := words(s)
	if len(w) == 0 {
		return ""
	}
	return strings.Trim(lowerASCII(w[0]), ",;:")
}

// capitalized reports whether the word starts with an upper-case letter or
// a digit (a proper noun or a year, not a head noun).
func capitalized(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// upperFirst capitalises the first letter, as QUEST's category names are.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// isLinkWord reports whether w starts a post-modifier of a category name
// ("Birds of Mindoro", "Films set in Lebanon", "Novels about poverty"). A
// conjunct that starts with one has lost its head noun to the previous
// conjunct.
func isLinkWord(w string) bool {
	switch w {
	case "of", "from", "in", "on", "at", "by", "about", "with", "set", "based", "found", "native",
		"shot", "filmed", "written", "published", "directed", "produced", "featuring", "during",
		"within", "to", "for", "starring", "released", "endemic", "located", "depicting", "involving",
		"made", "that", "which", "who", "growing", "living", "originating", "taking", "adapted",
		"inspired", "centered", "centred", "focused", "described", "discovered", "remade", "used",
		"named", "known", "listed", "classified", "grown", "cultivated", "eaten", "introduced", "won":
		return true
	}
	return false
}

// isHeadNoun reports whether w is one of the plural category nouns
// QUEST-style queries are built on (Wikipedia category heads) or an
// everyday synonym. A conjunct without one ("Dutch", "American horror")
// borrows the head of its neighbour.
func isHeadNoun(w string) bool {
	switch w {
	case "films", "movies", "film", "movie", "novels", "novel", "books", "book", "flora", "fauna",
		"plants", "plant", "birds", "trees", "fish", "fishes", "mammals", "animals", "insects", "moths",
		"butterflies", "orchids", "reptiles", "amphibians", "frogs", "snakes", "lizards", "spiders",
		"beetles", "crustaceans", "molluscs", "mollusks", "snails", "genera", "species", "shrubs",
		"grasses", "ferns", "cacti", "fungi", "dinosaurs", "documentaries", "works", "novellas",
		"stories", "plays", "poems", "comics", "manga", "anime", "series", "biographies", "memoirs",
		"dramas", "comedies", "thrillers", "westerns", "musicals", "vertebrates", "invertebrates",
		"arthropods", "rodents", "bats", "primates", "sharks", "rays", "turtles", "crocodilians",
		"bryophytes", "mosses", "lichens", "vines", "herbs", "flowers", "crops", "vegetables", "fruits",
		"shorebirds", "seabirds", "songbirds", "wildlife", "life", "collections", "anthologies",
		"essays", "textbooks", "software", "programs", "tools", "packages", "games", "libraries",
		"utilities", "applications", "fonts", "dictionaries", "editors", "daemons", "servers", "clients",
		"cetaceans", "marsupials", "ungulates", "carnivorans", "succulents", "epiphytes", "palms",
		"grass", "cultivars", "taxa", "organisms", "creatures", "pictures", "shorts", "cartoons",
		"adaptations", "sequels", "remakes", "epics":
		return true
	}
	return false
}

// hasHead reports whether s contains a head noun.
func hasHead(s string) bool {
	for _, w := range words(lowerASCII(s)) {
		if isHeadWord(w) {
			return true
		}
	}
	return false
}

// isHeadWord reports whether w (any case, maybe hyphenated as in
// "fantasy-comedies") ends in a head noun.
func isHeadWord(w string) bool {
	w = strings.Trim(lowerASCII(w), ",;:.()")
	if i := strings.LastIndexByte(w, '-'); i >= 0 {
		w = w[i+1:]
	}
	return isHeadNoun(w)
}

// headIndex returns the word index of the last head noun before the first
// link word, or -1.
func headIndex(ws []string) int {
	h := -1
	for i, w := range ws {
		lw := strings.Trim(lowerASCII(w), ",;:.()")
		if i > 0 && isLinkWord(lw) {
			break
		}
		if isHeadWord(lw) {
			h = i
		}
	}
	return h
}
