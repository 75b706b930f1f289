package trecfmt

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ids in TREC columns (issue 25). A TREC file splits its fields on white
// space, so an id with white space in it (a QUEST document id is a
// Wikipedia title: "Merida wren") cannot be written as it is. The rule:
//
//   - An id without white space or control characters is written
//     unchanged, whatever else it contains ("msmarco_doc_00_1", "50%"):
//     ids that were valid TREC tokens before stay byte for byte the same.
//   - An id with white space or control characters is escaped (EncodeID):
//     "%" → "%25", "_" → "%5F", a space → "_" (as Wikipedia URLs do),
//     every other white-space or control character → "%XX" per UTF-8
//     byte (upper-case hex). "Merida wren" → "Merida_wren",
//     "A_b c" → "A%5Fb_c", "a\tb" → "a%09b". DecodeID reverses it.
//   - Within one project the escaped token of an id can equal another id
//     written unchanged (the project has both "A b" and "A_b"). The id
//     written unchanged keeps its token; the escaped id gets the first free
//     of token~2, token~3, … ("A b" → "A_b~2"). IDMap holds this for a
//     project's whole id set, so every export of the project (qrels, runs,
//     the id map) uses the same tokens and reading them back (IDMap.Decode)
//     gives the original ids.
//
// Readers return tokens as they are; the importers map them back with the
// project's IDMap, which also accepts the plain "white space → _" form
// other tools write when it names exactly one id of the project.

// NeedsEncoding reports whether id cannot be written as one TREC token:
// it contains white space (as strings.Fields splits on) or a control
// character, or is not valid UTF-8.
func NeedsEncoding(id string) bool {
	if !utf8.ValidString(id) {
		return true
	}
	return strings.IndexFunc(id, escapedRune) >= 0
}

// escapedRune is a rune EncodeID writes as %XX.
func escapedRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
}

// EncodeID is id as one white-space-free token by the rule above (without
// the per-project collision suffix, which IDMap adds). Ids that need no
// encoding are returned unchanged.
func EncodeID(id string) string {
	if !NeedsEncoding(id) {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); {
		r, n := utf8.DecodeRuneInString(id[i:])
		switch {
		case r == ' ':
			b.WriteByte('_')
		case r == '_' || r == '%' || escapedRune(r):
			for _, c := range []byte(id[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteString(id[i : i+n])
		}
		i += n
	}
	return b.String()
}

// DecodeID reverses EncodeID's escaping: "_" → space, "%XX" → the byte
// XX. It reports false for a token that no escaped id encodes to (a
// malformed "%" escape, an escape of a character EncodeID writes as it is).
// It is the inverse of EncodeID only for ids that NeedsEncoding; a token
// written unchanged decodes to itself only if it has no "_" or "%".
func DecodeID(tok string) (string, bool) {
	if !strings.ContainsAny(tok, "_%") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '_':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(tok) || !isUpperHex(tok[i+1]) || !isUpperHex(tok[i+2]) {
				return "", false
			}
			v, _ := strconv.ParseUint(tok[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	id := b.String()
	if EncodeID(id) != tok {
		return "", false // not EncodeID's form (e.g. "%41" for "A")
	}
	return id, true
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

// plainForm is the form other tools write: every white-space run → "_".
func plainForm(id string) string {
	return strings.Join(strings.FieldsFunc(id, escapedRune), "_")
}

// IDMap is the TREC tokens of one id namespace (documents or queries) of a
// project: the escaped ids with their tokens, collisions resolved. A nil
// *IDMap encodes by EncodeID alone and decodes nothing.
type IDMap struct {
	enc   map[string]string // original → token, escaped ids only
	dec   map[string]string // token → original
	plain map[string]string // plain form → original; "" = ambiguous
}

// BuildIDMap builds the map of the ids that NeedsEncoding (spaced; others
// are ignored). exists reports which of the given tokens are ids of the
// namespace themselves (written unchanged, so taken); it is called a few
// times with the candidate tokens. The result does not depend on the order
// of spaced.
func BuildIDMap(spaced []string, exists func(tokens []string) (map[string]bool, error)) (*IDMap, error) {
	ids := make([]string, 0, len(spaced))
	seen := map[string]bool{}
	for _, id := range spaced {
		if NeedsEncoding(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	m := &IDMap{enc: map[string]string{}, dec: map[string]string{}, plain: map[string]string{}}
	if len(ids) == 0 {
		return m, nil
	}
	cands := make([]string, 0, len(ids))
	for _, id := range ids {
		t, p := EncodeID(id), plainForm(id)
		cands = append(cands, t)
		if p != t { // the same for an id without "_", "%" or other white space
			cands = append(cands, p)
		}
	}
	literal, err := exists(cands)
	if err != nil {
		return nil, err
	}
	// Escaped tokens are distinct (EncodeID is injective on ids that need
	// it); only an id written unchanged can take one.
	var clash []string
	for _, id := range ids {
		t := EncodeID(id)
		if literal[t] {
			clash = append(clash, id)
			continue
		}
		m.enc[id], m.dec[t] = t, id
	}
	for _, id := range clash {
		base, chosen := EncodeID(id), ""
		for n := 2; chosen == ""; n += 8 {
			var tries []string
			for k := n; k < n+8; k++ {
				if t := base + "~" + strconv.Itoa(k); m.dec[t] == "" {
					tries = append(tries, t)
				}
			}
			taken, err := exists(tries)
			if err != nil {
				return nil, err
			}
			for _, t := range tries {
				if !taken[t] {
					chosen = t
					break
				}
			}
		}
		m.enc[id], m.dec[chosen] = chosen, id
	}
	for _, id := range ids {
		p := plainForm(id)
		if literal[p] || p == "" {
			continue
		}
		if _, dup := m.plain[p]; dup {
			m.plain[p] = ""
			continue
		}
		m.plain[p] = id
	}
	return m, nil
}

// Encode is id's token: the map's token for an escaped id, otherwise
// EncodeID(id) (unchanged for an id that needs no encoding).
func (m *IDMap) Encode(id string) string {
	if m != nil {
		if t, ok := m.enc[id]; ok {
			return t
		}
	}
	return EncodeID(id)
}

// Decode is the id a token read from a file names: the escaped id the map
// gives that token, else the one id whose plain form ("_" for white space,
// as other tools write) the token is, else the token itself.
func (m *IDMap) Decode(tok string) string {
	if m == nil {
		return tok
	}
	if id, ok := m.dec[tok]; ok {
		return id
	}
	if id := m.plain[tok]; id != "" {
		return id
	}
	return tok
}

// Len is the number of ids written as a different token.
func (m *IDMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.enc)
}

// IDPair is one id whose token differs from it.
type IDPair struct {
	Token, ID string
}

// Changed lists the ids written as a different token, by token.
func (m *IDMap) Changed() []IDPair {
	if m == nil {
		return nil
	}
	out := make([]IDPair, 0, len(m.enc))
	for id, t := range m.enc {
		out = append(out, IDPair{Token: t, ID: id})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Token < out[j].Token })
	return out
}

// IDMapHeader is the header line of an id map file.
const IDMapHeader = "kind\ttoken\tid"

// WriteIDMap writes the id map file: a header, then one line
// "kind<TAB>token<TAB>id" per changed id, kind "query" or "doc". An id
// with a tab, newline or backslash is written with Go-style escapes
// (strconv.Quote without its quotes) so every line stays three fields.
// It returns the number of lines after the header.
func WriteIDMap(w io.Writer, queries, docs *IDMap) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	if _, err := bw.WriteString(IDMapHeader + "\n"); err != nil {
		return 0, err
	}
	for _, k := range []struct {
		kind string
		m    *IDMap
	}{{"query", queries}, {"doc", docs}} {
		for _, p := range k.m.Changed() {
			if _, err := fmt.Fprintf(bw, "%s\t%s\t%s\n", k.kind, p.Token, tsvField(p.ID)); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, bw.Flush()
}

// tsvField is s with backslash, tab, newline and carriage return escaped.
func tsvField(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// IDMaps are the id maps of a project's two namespaces.
type IDMaps struct {
	Queries, Docs *IDMap
}

// BuildIDMaps builds both maps of a project from its candidate ids
// (candidates(kind), kind "query" or "doc": ids that may need encoding)
// and its ids' existence (exists(kind, tokens)).
func BuildIDMaps(candidates func(kind string) ([]string, error), exists func(kind string, tokens []string) (map[string]bool, error)) (IDMaps, error) {
	var out IDMaps
	for _, k := range []struct {
		kind string
		m    **IDMap
	}{{"query", &out.Queries}, {"doc", &out.Docs}} {
		ids, err := candidates(k.kind)
		if err != nil {
			return IDMaps{}, err
		}
		m, err := BuildIDMap(ids, func(tokens []string) (map[string]bool, error) { return exists(k.kind, tokens) })
		if err != nil {
			return IDMaps{}, err
		}
		*k.m = m
	}
	return out, nil
}
