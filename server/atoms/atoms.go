// Package atoms identifies a project's atomic constraints across queries
// (one atom per normalised text, with a researcher's merges and splits),
// derives a query's label for a document from its atoms' labels
// (compositional qrels), generates a query's Boolean variants in QUEST's
// templates, and simulates constraint pooling: judging (atom, document)
// pairs instead of (query, document) pairs.
//
// Everything here is pure and deterministic; project.go holds the few
// functions that read and write the store.
package atoms

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Normalise returns the key that identifies an atom text across queries:
// lower case, inner white space collapsed to one space, surrounding
// white space, quotes and trailing punctuation removed. "Films set in
// Paris" and " films  set in paris." share one key.
func Normalise(text string) string {
	s := strings.ToLower(strings.Join(strings.Fields(text), " "))
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '\'' || r == '“' || r == '”' || r == '.' || r == ',' || r == ';' || r == ':'
	})
	return s
}

// Use is one occurrence of an atom: the index of the atom within a query.
type Use struct {
	Query string `json:"query"` // the query's ext id
	Index int    `json:"index"` // atom index within the query's expression
}

// Atom is one shared constraint of a project.
type Atom struct {
	Key  string `json:"key"`  // identity: Normalise(text), or a split's new key
	Text string `json:"text"` // display text (the first occurrence's)
	Uses []Use  `json:"uses"` // sorted by query, then index
}

// QueryAtoms lists one query's atom texts by index.
type QueryAtoms struct {
	Query string
	Atoms []string
}

// Registry maps every atom use of a project to its shared atom.
type Registry struct {
	atoms map[string]*Atom
	byUse map[Use]string
}

// Identify builds the registry of queries: atoms with the same normalised
// text are one atom. Empty texts are an error naming the query.
func Identify(queries []QueryAtoms) (*Registry, error) {
	r := &Registry{atoms: map[string]*Atom{}, byUse: map[Use]string{}}
	for _, q := range queries {
		for i, t := range q.Atoms {
			k := Normalise(t)
			if k == "" {
				return nil, fmt.Errorf("atoms: query %q atom %d: empty text", q.Query, i)
			}
			if err := r.Add(Use{Query: q.Query, Index: i}, k, t); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// Add links one use to the atom key (created with text when new).
func (r *Registry) Add(u Use, key, text string) error {
	if old, ok := r.byUse[u]; ok {
		return fmt.Errorf("atoms: query %q atom %d is already linked to %q", u.Query, u.Index, old)
	}
	a := r.atoms[key]
	if a == nil {
		a = &Atom{Key: key, Text: text}
		r.atoms[key] = a
	}
	a.Uses = append(a.Uses, u)
	sortUses(a.Uses)
	r.byUse[u] = key
	return nil
}

// Atom returns the atom with key.
func (r *Registry) Atom(key string) (Atom, bool) {
	a, ok := r.atoms[key]
	if !ok {
		return Atom{}, false
	}
	c := *a
	c.Uses = append([]Use(nil), a.Uses...)
	return c, true
}

// KeyOf returns the key of the atom a use is linked to.
func (r *Registry) KeyOf(u Use) (string, bool) {
	k, ok := r.byUse[u]
	return k, ok
}

// Atoms returns every atom, sorted by key.
func (r *Registry) Atoms() []Atom {
	keys := make([]string, 0, len(r.atoms))
	for k := range r.atoms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Atom, len(keys))
	for i, k := range keys {
		out[i], _ = r.Atom(k)
	}
	return out
}

// Merge moves every use of atom from into atom into (the normaliser missed
// that two texts are the same constraint) and removes from.
func (r *Registry) Merge(into, from string) error {
	if into == from {
		return fmt.Errorf("atoms: merge %q into itself", into)
	}
	dst, ok := r.atoms[into]
	if !ok {
		return fmt.Errorf("atoms: merge: no atom %q", into)
	}
	src, ok := r.atoms[from]
	if !ok {
		return fmt.Errorf("atoms: merge: no atom %q", from)
	}
	for _, u := range src.Uses {
		r.byUse[u] = into
	}
	dst.Uses = append(dst.Uses, src.Uses...)
	sortUses(dst.Uses)
	delete(r.atoms, from)
	return nil
}

// Split moves the given uses of atom key to a new atom newKey with text
// (the normaliser joined two different constraints). The uses must belong
// to key, must not be all of its uses, and newKey must be free.
func (r *Registry) Split(key string, uses []Use, newKey, text string) error {
	src, ok := r.atoms[key]
	if !ok {
		return fmt.Errorf("atoms: split: no atom %q", key)
	}
	if newKey == "" {
		return fmt.Errorf("atoms: split %q: empty new key", key)
	}
	if _, taken := r.atoms[newKey]; taken {
		return fmt.Errorf("atoms: split %q: key %q is taken", key, newKey)
	}
	if len(uses) == 0 || len(uses) >= len(src.Uses) {
		return fmt.Errorf("atoms: split %q: move between 1 and %d of its %d uses, got %d", key, len(src.Uses)-1, len(src.Uses), len(uses))
	}
	move := map[Use]bool{}
	for _, u := range uses {
		if r.byUse[u] != key {
			return fmt.Errorf("atoms: split %q: query %q atom %d is not one of its uses", key, u.Query, u.Index)
		}
		move[u] = true
	}
	var keep []Use
	dst := &Atom{Key: newKey, Text: text}
	for _, u := range src.Uses {
		if move[u] {
			dst.Uses = append(dst.Uses, u)
			r.byUse[u] = newKey
		} else {
			keep = append(keep, u)
		}
	}
	src.Uses = keep
	r.atoms[newKey] = dst
	return nil
}

// SplitKey returns a fresh key for a split of key: key + " (2)", " (3)", …
func (r *Registry) SplitKey(key string) string {
	for n := 2; ; n++ {
		k := fmt.Sprintf("%s (%d)", key, n)
		if _, taken := r.atoms[k]; !taken {
			return k
		}
	}
}

func sortUses(us []Use) {
	sort.Slice(us, func(i, j int) bool {
		if us[i].Query != us[j].Query {
			return us[i].Query < us[j].Query
		}
		return us[i].Index < us[j].Index
	})
}
