package atoms

import (
	"fmt"
	"sort"
	"strings"

	"boolpool/server/boolexpr"
)

// Flag is a logical inconsistency among the labels of one document: a
// direct judgment that no assignment of its atoms can explain together with
// the atom labels (Other == ""), or two related queries (sharing an atom)
// whose direct judgments contradict each other (e.g. relevant to A AND B
// but not relevant to A).
type Flag struct {
	Doc    string `json:"doc"`
	Query  string `json:"query"`
	Other  string `json:"other,omitempty"`
	Reason string `json:"reason"`
}

// Inconsistencies returns the flags of every document with a direct
// judgment (direct: query id → document → relevant). texts gives each
// query's text for the reason (the id when missing); atomTexts each atom
// key's display text. Flags are sorted by document, query, other.
func Inconsistencies(qs []Query, texts, atomTexts map[string]string, l Labels, direct map[string]map[string]bool) ([]Flag, error) {
	byID := map[string]Query{}
	for _, q := range qs {
		if err := q.Validate(); err != nil {
			return nil, err
		}
		byID[q.ID] = q
	}
	perDoc := map[string][]string{} // doc → queries with a direct judgment
	for qid, docs := range direct {
		if _, ok := byID[qid]; !ok {
			continue
		}
		for d := range docs {
			perDoc[d] = append(perDoc[d], qid)
		}
	}
	name := func(qid string) string {
		if t, ok := texts[qid]; ok && t != "" {
			return t
		}
		return qid
	}
	rel := func(b bool) string {
		if b {
			return "relevant"
		}
		return "not relevant"
	}
	var out []Flag
	for d, qids := range perDoc {
		sort.Strings(qids)
		for i, a := range qids {
			qa := byID[a]
			ra := direct[a][d]
			if !satisfiable(l, d, []Query{qa}, []bool{ra}) {
				out = append(out, Flag{Doc: d, Query: a, Reason: fmt.Sprintf("judged %s to %q but its constraint judgments say %s (%s)",
					rel(ra), name(a), rel(!ra), atomState(qa, l, d, atomTexts))})
				continue
			}
			for _, b := range qids[i+1:] {
				qb := byID[b]
				rb := direct[b][d]
				if !shareAtom(qa, qb) || !satisfiable(l, d, []Query{qb}, []bool{rb}) {
					continue
				}
				if !satisfiable(l, d, []Query{qa, qb}, []bool{ra, rb}) {
					out = append(out, Flag{Doc: d, Query: a, Other: b,
						Reason: fmt.Sprintf("judged %s to %q but %s to %q", rel(ra), name(a), rel(rb), name(b))})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Doc != out[j].Doc {
			return out[i].Doc < out[j].Doc
		}
		if out[i].Query != out[j].Query {
			return out[i].Query < out[j].Query
		}
		return out[i].Other < out[j].Other
	})
	return out, nil
}

func shareAtom(a, b Query) bool {
	for _, x := range a.Atoms {
		for _, y := range b.Atoms {
			if x == y {
				return true
			}
		}
	}
	return false
}

// satisfiable reports whether some True/False assignment of the queries'
// atoms on doc, agreeing with the known (yes/no) atom labels, gives every
// query its wanted value.
func satisfiable(l Labels, doc string, qs []Query, want []bool) bool {
	var keys []string
	idx := map[string]int{}
	for _, q := range qs {
		for _, k := range q.Atoms {
			if _, ok := idx[k]; !ok {
				idx[k] = len(keys)
				keys = append(keys, k)
			}
		}
	}
	if len(keys) > 16 {
		return true // too many to enumerate: never flag
	}
	vals := make([]bool, len(keys))
	for m := 0; m < 1<<len(keys); m++ {
		ok := true
		for i, k := range keys {
			vals[i] = m&(1<<i) != 0
			if t, known := l.Get(k, doc); known && t != boolexpr.Unknown && (t == boolexpr.True) != vals[i] {
				ok = false
				break
			}
		}
		for j, q := range qs {
			if !ok {
				break
			}
			av := make([]bool, len(q.Atoms))
			for i, k := range q.Atoms {
				av[i] = vals[idx[k]]
			}
			ok = q.Expr.EvalBool(av) == want[j]
		}
		if ok {
			return true
		}
	}
	return false
}

// atomState describes q's atom labels on doc, e.g. `"board games" yes,
// "Xlib programs" no`.
func atomState(q Query, l Labels, doc string, atomTexts map[string]string) string {
	parts := make([]string, len(q.Atoms))
	for i, k := range q.Atoms {
		t := k
		if s, ok := atomTexts[k]; ok && s != "" {
			t = s
		}
		v := "unjudged"
		if x, ok := l.Get(k, doc); ok {
			v = map[boolexpr.Truth]string{boolexpr.True: "yes", boolexpr.False: "no", boolexpr.Unknown: "unsure"}[x]
		}
		parts[i] = fmt.Sprintf("%q %s", t, v)
	}
	return strings.Join(parts, ", ")
}
