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
	if i <= 0 || i >= len(s) {
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

func lastWord(s string) string {
	w := words(s)
	if len(w) == 0 {
		return ""
	}
	return strings.Trim(lowerASCII(w[len(w)-1]), ",;:")
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

// linkWords start a post-modifier of a category name ("Birds of Mindoro",
// "Films set in Lebanon", "Novels about poverty"). A conjunct that starts
// with one has lost its head noun to the previous conjunct.
var linkWords = map[string]bool{
	"of": true, "from": true, "in": true, "on": true, "at": true, "by": true,
	"about": true, "with": true, "set": true, "based": true, "found": true,
	"native": true, "shot": true, "filmed": true, "written": true, "published": true,
	"directed": true, "produced": true, "featuring": true, "during": true,
	"within": true, "to": true, "for": true, "starring": true, "released": true,
	"endemic": true, "located": true, "depicting": true, "involving": true,
	"made": true, "that": true, "which": true, "who": true, "growing": true,
	"living": true, "originating": true, "taking": true, "adapted": true,
	"inspired": true, "centered": true, "centred": true, "focused": true,
	"described": true, "discovered": true, "remade": true, "used": true, "named": true,
	"known": true, "listed": true, "classified": true, "grown": true, "cultivated": true,
	"eaten": true, "introduced": true, "won": true,
}

// headNouns are the plural category nouns QUEST-style queries are built on
// (Wikipedia category heads) and a few of their everyday synonyms. A
// conjunct without one ("Dutch", "American horror") borrows the head of its
// neighbour.
var headNouns = map[string]bool{
	"films": true, "movies": true, "film": true, "movie": true, "novels": true, "novel": true,
	"books": true, "book": true, "flora": true, "fauna": true, "plants": true, "plant": true,
	"birds": true, "trees": true, "fish": true, "fishes": true, "mammals": true, "animals": true,
	"insects": true, "moths": true, "butterflies": true, "orchids": true, "reptiles": true,
	"amphibians": true, "frogs": true, "snakes": true, "lizards": true, "spiders": true,
	"beetles": true, "crustaceans": true, "molluscs": true, "mollusks": true, "snails": true,
	"genera": true, "species": true, "shrubs": true, "grasses": true, "ferns": true,
	"cacti": true, "fungi": true, "dinosaurs": true, "documentaries": true, "works": true,
	"novellas": true, "stories": true, "plays": true, "poems": true, "comics": true,
	"manga": true, "anime": true, "series": true, "biographies": true, "memoirs": true,
	"dramas": true, "comedies": true, "thrillers": true, "westerns": true, "musicals": true,
	"vertebrates": true, "invertebrates": true, "arthropods": true, "rodents": true,
	"bats": true, "primates": true, "sharks": true, "rays": true, "turtles": true,
	"crocodilians": true, "bryophytes": true, "mosses": true, "lichens": true, "vines": true,
	"herbs": true, "flowers": true, "crops": true, "vegetables": true, "fruits": true,
	"shorebirds": true, "seabirds": true, "songbirds": true, "wildlife": true, "life": true,
	"collections": true, "anthologies": true, "essays": true, "textbooks": true,
	"software": true, "programs": true, "tools": true, "packages": true, "games": true,
	"libraries": true, "utilities": true, "applications": true, "fonts": true,
	"dictionaries": true, "editors": true, "daemons": true, "servers": true, "clients": true,
	"cetaceans": true, "marsupials": true, "ungulates": true, "carnivorans": true,
	"succulents": true, "epiphytes": true, "palms": true, "grass": true, "cultivars": true,
	"taxa": true, "organisms": true, "creatures": true, "pictures": true, "shorts": true,
	"cartoons": true, "adaptations": true, "sequels": true, "remakes": true, "epics": true,
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
	return headNouns[w]
}

// headIndex returns the word index of the last head noun before the first
// link word, or -1.
func headIndex(ws []string) int {
	h := -1
	for i, w := range ws {
		lw := strings.Trim(lowerASCII(w), ",;:.()")
		if i > 0 && linkWords[lw] {
			break
		}
		if isHeadWord(lw) {
			h = i
		}
	}
	return h
}
