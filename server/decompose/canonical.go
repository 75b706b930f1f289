package decompose

import (
	"slices"
	"strings"
)

// demonyms maps the adjective Wikipedia category names use for works from
// a place ("Horror films from Serbia" is "Serbian horror films") to the
// spellings of that place, the category one (the longest) among them. It
// is the one table both directions read, and nothing writes it.
var demonyms = map[string][]string{
	"American":      {"america", "the united states", "the us", "the usa", "united states", "usa", "us"},
	"Indian":        {"india"},
	"French":        {"france"},
	"British":       {"britain", "great britain", "the united kingdom", "the uk", "uk", "united kingdom"},
	"German":        {"germany"},
	"Canadian":      {"canada"},
	"Czech":         {"czech republic", "the czech republic", "czechia"},
	"Dutch":         {"the netherlands", "netherlands", "holland"},
	"Spanish":       {"spain"},
	"Japanese":      {"japan"},
	"Chinese":       {"china"},
	"Irish":         {"ireland"},
	"Russian":       {"russia"},
	"Brazilian":     {"brazil"},
	"Israeli":       {"israel"},
	"Australian":    {"australia"},
	"Bulgarian":     {"bulgaria"},
	"Turkish":       {"turkey"},
	"Polish":        {"poland"},
	"Austrian":      {"austria"},
	"Romanian":      {"romania"},
	"English":       {"england"},
	"Swiss":         {"switzerland"},
	"Danish":        {"denmark"},
	"Italian":       {"italy"},
	"Icelandic":     {"iceland"},
	"Portuguese":    {"portugal"},
	"Philippine":    {"the philippines", "philippines"},
	"Bangladeshi":   {"bangladesh"},
	"Belgian":       {"belgium"},
	"Swedish":       {"sweden"},
	"Hungarian":     {"hungary"},
	"Czechoslovak":  {"czechoslovakia"},
	"Scottish":      {"scotland"},
	"Greek":         {"greece"},
	"Mauritanian":   {"mauritania"},
	"Senegalese":    {"senegal"},
	"Finnish":       {"finland"},
	"Serbian":       {"serbia"},
	"Nigerian":      {"nigeria"},
	"Norwegian":     {"norway"},
	"Mexican":       {"mexico"},
	"Argentine":     {"argentina"},
	"Chilean":       {"chile"},
	"Cuban":         {"cuba"},
	"Egyptian":      {"egypt"},
	"Iranian":       {"iran"},
	"Pakistani":     {"pakistan"},
	"South Korean":  {"south korea"},
	"Korean":        {"korea"},
	"North Korean":  {"north korea"},
	"Taiwanese":     {"taiwan"},
	"Thai":          {"thailand"},
	"Vietnamese":    {"vietnam"},
	"Indonesian":    {"indonesia"},
	"Malaysian":     {"malaysia"},
	"New Zealand":   {"new zealand"},
	"Hong Kong":     {"hong kong"},
	"Welsh":         {"wales"},
	"Ukrainian":     {"ukraine"},
	"Soviet":        {"the soviet union", "soviet union"},
	"Estonian":      {"estonia"},
	"Latvian":       {"latvia"},
	"Lithuanian":    {"lithuania"},
	"Croatian":      {"croatia"},
	"Slovenian":     {"slovenia"},
	"Slovak":        {"slovakia"},
	"Colombian":     {"colombia"},
	"Peruvian":      {"peru"},
	"Venezuelan":    {"venezuela"},
	"South African": {"south africa"},
	"Kenyan":        {"kenya"},
	"Ghanaian":      {"ghana"},
	"Lebanese":      {"lebanon"},
	"Syrian":        {"syria"},
	"Iraqi":         {"iraq"},
	"Sri Lankan":    {"sri lanka"},
	"Nepalese":      {"nepal"},
	"Singaporean":   {"singapore"},
	"Yugoslav":      {"yugoslavia"},
	"Quebec":        {"quebec"},
	"European":      {"europe"},
	"African":       {"africa"},
	"Asian":         {"asia"},
}

// demonymOf returns the demonym of place, or "".
func demonymOf(place string) string {
	for dem, places := range demonyms {
		if slices.Contains(places, place) {
			return dem
		}
	}
	return ""
}

// demonymPlaces returns the place spellings demonymOf maps to dem (nil
// when dem is not a demonym). The slice is shared: callers only read it.
func demonymPlaces(dem string) []string {
	return demonyms[dem]
}

// isWorkHead reports whether w is the head of creative works; their place
// modifiers become demonyms and their years move to the front ("2007 German
// novels").
func isWorkHead(w string) bool {
	switch w {
	case "films", "film", "novels", "novel", "books", "documentaries", "comedies", "dramas",
		"thrillers", "novellas", "plays", "comics", "anime", "manga", "musicals", "westerns", "series":
		return true
	}
	return false
}

// isTaxonHead reports whether w is the head of living things; "X from
// <place>" is "X of <place>" and "birds from 1961" is "Birds described in
// 1961".
func isTaxonHead(w string) bool {
	switch w {
	case "flora", "fauna", "plants", "birds", "trees", "fish", "fishes", "mammals", "animals",
		"insects", "moths", "butterflies", "orchids", "reptiles", "amphibians", "frogs", "snakes",
		"lizards", "spiders", "beetles", "crustaceans", "molluscs", "mollusks", "snails", "shrubs",
		"grasses", "ferns", "cacti", "fungi", "dinosaurs", "rodents", "bats", "primates", "sharks",
		"turtles", "vertebrates", "invertebrates", "arthropods", "lepidoptera", "crops":
		return true
	}
	return false
}

// wordSub returns the category spelling of a word that differs from it
// ("movies" → "films"), or "".
func wordSub(w string) string {
	switch w {
	case "movies":
		return "films"
	case "movie":
		return "film"
	case "sci-fi":
		return "science fiction"
	case "scifi":
		return "science fiction"
	case "us":
		return "United States"
	case "u.s.":
		return "United States"
	case "usa":
		return "United States"
	case "uk":
		return "United Kingdom"
	case "u.k.":
		return "United Kingdom"
	case "ww1":
		return "World War I"
	case "wwi":
		return "World War I"
	case "ww2":
		return "World War II"
	case "wwii":
		return "World War II"
	case "documentaries":
		return "documentary films"
	case "childrens":
		return "children's"
	case "childrens'":
		return "children's"
	}
	return ""
}

// placePreps returns the phrases that introduce where a taxon lives.
func placePreps() [][]string {
	return [][]string{
		{"that", "are", "from"}, {"that", "are", "native", "to"}, {"found", "only", "in"},
		{"that", "live", "in"}, {"that", "grow", "in"}, {"native", "to"}, {"found", "in"},
		{"located", "in"}, {"living", "in"}, {"growing", "in"}, {"that", "exist", "in"},
		{"existing", "in"}, {"from"}, {"in"}, {"of"},
	}
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
		if sub := wordSub(lw); sub != "" && !(lw == "us" && w == "us") {
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
	out = orderModifiers(out)
	out = realmFlora(out)
	return upperFirst(strings.Join(out, " "))
}

// realmFlora names the plants of a biogeographic realm or biome "flora",
// as the categories do ("Holarctic plants" → "Holarctic flora").
func realmFlora(ws []string) []string {
	n := len(ws)
	if n < 2 || lowerASCII(ws[n-1]) != "plants" {
		return ws
	}
	for _, w := range ws[:n-1] {
		switch lowerASCII(w) {
		case "holarctic", "nearctic", "palearctic", "palaearctic", "neotropical", "afrotropical",
			"pantropical", "paleotropical", "indomalayan", "australasian", "oceanian", "antarctic",
			"realm", "desert":
			out := append([]string{}, ws[:n-1]...)
			return append(out, "flora")
		}
	}
	return ws
}

// orderModifiers puts the pre-modifiers of a work in category order: year
// first, then nationality ("Australian 1993 novels" → "1993 Australian
// novels", "Silent Romanian films" → "Romanian silent films"). "Lost" and
// "-language" stay in front of the nationality, as in "Lost Indian films"
// and "English-language Taiwanese films".
func orderModifiers(ws []string) []string {
	h := headIndex(ws)
	if h < 2 || !isWorkHead(lowerASCII(ws[h])) {
		return ws
	}
	var year, dems, rest []string
	pre := ws[:h]
	for i, w := range pre {
		// A capitalised word inside the phrase makes the demonym part of a
		// name ("New American Library books").
		if i > 0 && capitalized(w) && !isYear(w) && demonymPlaces(w) == nil {
			return ws
		}
	}
	for i := 0; i < len(pre); i++ {
		w := pre[i]
		lw := lowerASCII(w)
		switch {
		case isYear(w):
			year = append(year, w)
		case i+1 < len(pre) && demonymPlaces(w+" "+pre[i+1]) != nil:
			dems = append(dems, w, pre[i+1])
			i++
		case demonymPlaces(w) != nil:
			dems = append(dems, w)
		case lw == "lost" || strings.HasSuffix(lw, "-language"):
			if len(dems) > 0 || len(rest) > 0 {
				return ws
			}
			year = append(year, w)
		default:
			rest = append(rest, w)
		}
	}
	if len(year) > 2 || len(rest) == 0 && len(dems) == 0 {
		return ws
	}
	out := append(append([]string{}, year...), dems...)
	if len(rest) > 0 {
		if len(out) > 0 {
			rest = lowerFirstWord(rest)
		}
		out = append(out, rest...)
	}
	return append(out, ws[h:]...)
}

// dropRelative removes "that are" / "which are" before a link word: "Films
// that are set in Jakarta" is "Films set in Jakarta".
func dropRelative(ws []string) []string {
	for i := 0; i+2 < len(ws); i++ {
		a, b := lowerASCII(ws[i]), lowerASCII(ws[i+1])
		if (a == "that" || a == "which") && (b == "are" || b == "were" || b == "is") &&
			isLinkWord(lowerASCII(ws[i+2])) && i > 0 {
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
	for _, place := range demonymPlaces(w) {
		// The longest spelling is the category one ("the United States"
		// rather than "us").
		if len(place) > len(best) {
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

// isPublisherWord reports whether w marks a name as a publisher or title,
// not an author.
func isPublisherWord(w string) bool {
	switch w {
	case "the", "press", "books", "publishing", "house", "comics", "publishers", "random", "penguin":
		return true
	}
	return false
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
		!isPublisherWord(lowerASCII(pre[0])) && !isPublisherWord(lowerASCII(pre[1])) {
		return []string{upperFirst(head), "by", pre[0], pre[1]}
	}
	if isTaxonHead(head) && len(pre) >= 1 {
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
	// "Insects from the late Cretaceous period" → "Late Cretaceous insects"
	if n := len(post); isTaxonHead(head) && n >= 3 && (lpost[0] == "from" || lpost[0] == "of" || lpost[0] == "in") &&
		lpost[1] == "the" && (lpost[n-1] == "period" || lpost[n-1] == "era" || lpost[n-1] == "epoch") && n > 3 {
		np := append(append([]string{upperFirst(post[2])}, post[3:n-1]...), lowerFirstWord(pre)...)
		return append(np, lowerASCII(ws[h]))
	}
	// "<pre> HEAD from/of/in (the) YEAR"
	if n := len(post); n >= 2 && n <= 3 && (lpost[0] == "from" || lpost[0] == "of" || lpost[0] == "in") &&
		isYear(post[n-1]) && (n == 2 || lpost[1] == "the") {
		year := post[n-1]
		if isTaxonHead(head) {
			return append(append(append([]string{}, pre...), ws[h]), "described", "in", year)
		}
		if isWorkHead(head) {
			np := append([]string{year}, lowerFirstWord(pre)...)
			if len(pre) == 0 {
				return append(np, head)
			}
			return append(np, ws[h])
		}
	}
	if isWorkHead(head) && len(post) >= 2 && lpost[0] == "from" {
		if dem := demonymOf(strings.Join(lpost[1:], " ")); dem != "" {
			np := append([]string{dem}, lowerFirstWord(pre)...)
			return append(np, head)
		}
	}
	// "plants endemic to Ghana" → "Endemic flora of Ghana"
	if isTaxonHead(head) && len(post) >= 3 && lpost[0] == "endemic" && lpost[1] == "to" {
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
	if isTaxonHead(head) {
		for _, p := range placePreps() {
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
