package decompose

import "strings"

// demonyms maps places to the adjective Wikipedia category names use for
// works from them ("Horror films from Serbia" is "Serbian horror films").
var demonyms = map[string]string{
	"america": "American", "the united states": "American", "the us": "American", "the usa": "American",
	"united states": "American", "usa": "American", "us": "American",
	"india": "Indian", "france": "French", "britain": "British", "great britain": "British",
	"the united kingdom": "British", "the uk": "British", "uk": "British", "united kingdom": "British",
	"germany": "German", "canada": "Canadian", "czech republic": "Czech", "the czech republic": "Czech",
	"czechia": "Czech", "the netherlands": "Dutch", "netherlands": "Dutch", "holland": "Dutch",
	"spain": "Spanish", "japan": "Japanese", "china": "Chinese", "ireland": "Irish", "russia": "Russian",
	"brazil": "Brazilian", "israel": "Israeli", "australia": "Australian", "bulgaria": "Bulgarian",
	"turkey": "Turkish", "poland": "Polish", "austria": "Austrian", "romania": "Romanian",
	"england": "English", "switzerland": "Swiss", "denmark": "Danish", "italy": "Italian",
	"iceland": "Icelandic", "portugal": "Portuguese", "the philippines": "Philippine",
	"philippines": "Philippine", "bangladesh": "Bangladeshi", "belgium": "Belgian", "sweden": "Swedish",
	"hungary": "Hungarian", "czechoslovakia": "Czechoslovak", "scotland": "Scottish", "greece": "Greek",
	"mauritania": "Mauritanian", "senegal": "Senegalese", "finland": "Finnish", "serbia": "Serbian",
	"nigeria": "Nigerian", "norway": "Norwegian", "mexico": "Mexican", "argentina": "Argentine",
	"chile": "Chilean", "cuba": "Cuban", "egypt": "Egyptian", "iran": "Iranian", "pakistan": "Pakistani",
	"south korea": "South Korean", "korea": "Korean", "north korea": "North Korean", "taiwan": "Taiwanese",
	"thailand": "Thai", "vietnam": "Vietnamese", "indonesia": "Indonesian", "malaysia": "Malaysian",
	"new zealand": "New Zealand", "hong kong": "Hong Kong", "wales": "Welsh", "ukraine": "Ukrainian",
	"the soviet union": "Soviet", "soviet union": "Soviet", "estonia": "Estonian", "latvia": "Latvian",
	"lithuania": "Lithuanian", "croatia": "Croatian", "slovenia": "Slovenian", "slovakia": "Slovak",
	"colombia": "Colombian", "peru": "Peruvian", "venezuela": "Venezuelan", "south africa": "South African",
	"kenya": "Kenyan", "ghana": "Ghanaian", "lebanon": "Lebanese", "syria": "Syrian", "iraq": "Iraqi",
	"sri lanka": "Sri Lankan", "nepal": "Nepalese", "singapore": "Singaporean", "yugoslavia": "Yugoslav",
	"quebec": "Quebec", "europe": "European", "africa": "African", "asia": "Asian",
}

// workHeads are heads of creative works; their place modifiers become
// demonyms and their years move to the front ("2007 German novels").
var workHeads = map[string]bool{
	"films": true, "film": true, "novels": true, "novel": true, "books": true, "documentaries": true,
	"comedies": true, "dramas": true, "thrillers": true, "novellas": true, "plays": true, "comics": true,
	"anime": true, "manga": true, "musicals": true, "westerns": true, "series": true,
}

// taxonHeads are heads of living things; "X from <place>" is "X of
// <place>" and "birds from 1961" is "Birds described in 1961".
var taxonHeads = map[string]bool{
	"flora": true, "fauna": true, "plants": true, "birds": true, "trees": true, "fish": true,
	"fishes": true, "mammals": true, "animals": true, "insects": true, "moths": true, "butterflies": true,
	"orchids": true, "reptiles": true, "amphibians": true, "frogs": true, "snakes": true, "lizards": true,
	"spiders": true, "beetles": true, "crustaceans": true, "molluscs": true, "mollusks": true,
	"snails": true, "shrubs": true, "grasses": true, "ferns": true, "cacti": true, "fungi": true,
	"dinosaurs": true, "rodents": true, "bats": true, "primates": true, "sharks": true, "turtles": true,
	"vertebrates": true, "invertebrates": true, "arthropods": true, "lepidoptera": true, "crops": true,
}

// wordSubs normalise spellings that differ from category names.
var wordSubs = map[string]string{
	"movies": "films", "movie": "film", "sci-fi": "science fiction", "scifi": "science fiction",
	"us": "United States", "u.s.": "United States", "usa": "United States", "uk": "United Kingdom",
	"u.k.": "United Kingdom", "ww1": "World War I", "wwi": "World War I", "ww2": "World War II",
	"wwii": "World War II", "childrens": "children's", "childrens'": "children's",
}

// placePreps introduce where a taxon lives.
var placePreps = [][]string{
	{"that", "are", "from"}, {"that", "are", "native", "to"}, {"found", "only", "in"},
	{"that", "live", "in"}, {"that", "grow", "in"}, {"native", "to"}, {"found", "in"},
	{"located", "in"}, {"living", "in"}, {"growing", "in"}, {"from"}, {"in"}, {"of"},
}

// canonical rewrites an atom towards Wikipedia category style, the form of
// QUEST's marked atoms: decades without apostrophes, "films" for "movies",
// years in front ("1957 debut novels"), demonyms for places of works
// ("Serbian horror films"), "of" for where taxa live ("Fish of Egypt",
// "Flora of Belarus"). Shapes it does not recognise are only tidied.
func canonical(a string) string {
	ws := words(clean(a))
	for len(ws) > 1 && (lowerASCII(ws[0]) == "a" || lowerASCII(ws[0]) == "an") {
		ws = ws[1:]
	}
	var out []string
	for _, w := range ws {
		lw := lowerASCII(w)
		if sub, ok := wordSubs[lw]; ok && !(lw == "us" && w == "us") {
			out = append(out, strings.Fields(sub)...)
			continue
		}
		if (strings.HasSuffix(lw, "'s") || strings.HasSuffix(lw, "’s")) && len(lw) >= 6 && isYear(lw[:4]+"s") {
			w = w[:4] + "s"
		}
		out = append(out, w)
	}
	out = dropRelative(out)
	out = rewriteNP(out)
	out = rewriteNames(out)
	return upperFirst(strings.Join(out, " "))
}

// dropRelative removes "that are" / "which are" before a link word: "Films
// that are set in Jakarta" is "Films set in Jakarta".
func dropRelative(ws []string) []string {
	for i := 0; i+2 < len(ws); i++ {
		a, b := lowerASCII(ws[i]), lowerASCII(ws[i+1])
		if (a == "that" || a == "which") && (b == "are" || b == "were" || b == "is") &&
			linkWords[lowerASCII(ws[i+2])] && i > 0 {
			return append(append([]string{}, ws[:i]...), ws[i+2:]...)
		}
	}
	return ws
}

// adjectiveLike reports whether a capitalised word is an adjective rather
// than a name ("Neotropical", "Canadian", "Chinese", "English-language").
func adjectiveLike(w string) bool {
	lw := lowerASCII(w)
	if placeOfDemonym(w) != "" {
		return true
	}
	for _, suf := range []string{"ic", "al", "an", "ese", "ish", "-language", "-related", "century", "'s", "’s"} {
		if strings.HasSuffix(lw, suf) {
			return true
		}
	}
	return false
}

// placeOfDemonym maps a demonym back to its place ("Croatian" → "Croatia",
// "American" → "the United States"), or "".
func placeOfDemonym(w string) string {
	best := ""
	for place, dem := range demonyms {
		// The longest spelling is the category one ("the United States"
		// rather than "us").
		if dem == w && (len(place) > len(best) || len(place) == len(best) && place < best) {
			best = place
		}
	}
	if best == "" {
		return ""
	}
	ws := strings.Fields(best)
	for i, x := range ws {
		if x != "the" && x != "of" && x != "and" {
			ws[i] = upperFirst(x)
		}
	}
	return strings.Join(ws, " ")
}

// publisherWords mark a name as a publisher or title, not an author.
var publisherWords = map[string]bool{
	"the": true, "press": true, "books": true, "publishing": true, "house": true, "comics": true,
	"publishers": true, "random": true, "penguin": true,
}

// rewriteNames applies the name rules of category titles: "Marlon James
// novels" is "Novels by Marlon James", "Alfred A. Knopf books" stays but
// "Books published by Alfred A. Knopf" becomes it, "Novels written by X"
// is "Novels by X", "Croatian endemic flora" is "Endemic flora of Croatia"
// and "Ontario's endemic fauna" is "Endemic fauna of Ontario". Capitalised
// pre-modifiers of taxa are left alone: sentence case and geological
// periods ("Miocene mammals") make them unreliable as place names.
func rewriteNames(ws []string) []string {
	h := headIndex(ws)
	if h < 0 && len(ws) > 1 && isHeadWord(ws[len(ws)-1]) {
		// "Croatian Endemic Flora": "endemic" is a link word only after
		// its head.
		h = len(ws) - 1
	}
	if h < 0 {
		return ws
	}
	head := lowerASCII(ws[h])
	pre, post := ws[:h], ws[h+1:]
	if len(post) >= 3 && (lowerASCII(post[0]) == "published" || lowerASCII(post[0]) == "written") && lowerASCII(post[1]) == "by" {
		if lowerASCII(post[0]) == "published" && properNoun(post[2:]) && len(pre) == 0 {
			return append(append([]string{}, post[2:]...), head)
		}
		if lowerASCII(post[0]) == "written" {
			return append(append(append([]string{}, pre...), ws[h], "by"), post[2:]...)
		}
	}
	if len(post) > 0 {
		return ws
	}
	if (head == "novels" || head == "books") && len(pre) == 2 && capitalized(pre[0]) && capitalized(pre[1]) &&
		!adjectiveLike(pre[0]) && !adjectiveLike(pre[1]) && !isYear(pre[0]) && !isYear(pre[1]) &&
		!publisherWords[lowerASCII(pre[0])] && !publisherWords[lowerASCII(pre[1])] {
		return []string{upperFirst(head), "by", pre[0], pre[1]}
	}
	if taxonHeads[head] && len(pre) >= 1 {
		// "Ontario's endemic fauna"
		if p := pre[0]; strings.HasSuffix(p, "'s") || strings.HasSuffix(p, "’s") {
			place := strings.TrimSuffix(strings.TrimSuffix(p, "'s"), "’s")
			rest := lowerFirstWord(append(pre[1:len(pre):len(pre)], lowerASCII(ws[h])))
			return append(append(rest, "of"), place)
		}
		// "Croatian endemic flora"
		if place := placeOfDemonym(pre[0]); place != "" {
			rest := lowerFirstWord(append(pre[1:len(pre):len(pre)], lowerASCII(ws[h])))
			return append(append(rest, "of"), strings.Fields(place)...)
		}
	}
	return ws
}

// rewriteNP applies the year / demonym / taxon rules to "PRE HEAD POST".
func rewriteNP(ws []string) []string {
	h := headIndex(ws)
	if h < 0 || h == len(ws)-1 {
		return ws
	}
	head := lowerASCII(ws[h])
	pre, post := ws[:h], ws[h+1:]
	lpost := make([]string, len(post))
	for i, w := range post {
		lpost[i] = lowerASCII(w)
	}
	// "<pre> HEAD from/of/in (the) YEAR"
	if n := len(post); n >= 2 && n <= 3 && (lpost[0] == "from" || lpost[0] == "of" || lpost[0] == "in") &&
		isYear(post[n-1]) && (n == 2 || lpost[1] == "the") {
		year := post[n-1]
		if taxonHeads[head] {
			return append(append(append([]string{}, pre...), ws[h]), "described", "in", year)
		}
		if workHeads[head] {
			np := append([]string{year}, lowerFirstWord(pre)...)
			if len(pre) == 0 {
				return append(np, head)
			}
			return append(np, ws[h])
		}
	}
	if workHeads[head] && len(post) >= 2 && lpost[0] == "from" {
		if dem, ok := demonyms[strings.Join(lpost[1:], " ")]; ok {
			np := append([]string{dem}, lowerFirstWord(pre)...)
			return append(np, head)
		}
	}
	// "plants endemic to Ghana" → "Endemic flora of Ghana"
	if taxonHeads[head] && len(post) >= 3 && lpost[0] == "endemic" && lpost[1] == "to" {
		h2 := lowerASCII(ws[h])
		switch h2 {
		case "plants":
			h2 = "flora"
		case "animals":
			h2 = "fauna"
		}
		np := append(append([]string{"Endemic"}, lowerFirstWord(pre)...), h2, "of")
		return append(np, post[2:]...)
	}
	if taxonHeads[head] {
		for _, p := range placePreps {
			if len(post) <= len(p) || !hasPrefixWords(lpost, p) {
				continue
			}
			place := post[len(p):]
			if !capitalized(place[0]) && lowerASCII(place[0]) != "the" {
				break
			}
			if isYear(place[len(place)-1]) || lowerASCII(place[len(place)-1]) == "period" {
				break
			}
			h2 := ws[h]
			if len(pre) == 0 {
				switch head {
				case "plants":
					h2 = "Flora"
				case "animals":
					h2 = "Fauna"
				}
			}
			return append(append(append(append([]string{}, pre...), h2), "of"), place...)
		}
	}
	return ws
}

func hasPrefixWords(ws, prefix []string) bool {
	if len(ws) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if ws[i] != p {
			return false
		}
	}
	return true
}

// lowerFirstWord lower-cases the first pre-modifier when a year or demonym
// moves in front of it ("Debut novels" → "1957 debut novels"), unless it is
// a proper word ("Seventh Doctor").
func lowerFirstWord(pre []string) []string {
	out := append([]string{}, pre...)
	if len(out) > 0 && !(len(out) > 1 && capitalized(out[1])) {
		out[0] = lowerASCII(out[0][:1]) + out[0][1:]
	}
	return out
}
