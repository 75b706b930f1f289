package pooling

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"boolpool/server/boolexpr"
)

// Memberships maps an atom id (e.g. a debtags tag) to the documents that
// carry it.
type Memberships map[string]map[string]bool

// ReadMemberships reads a DebQUEST memberships.tsv (gzip is detected):
// a header, then "title<TAB>section<TAB>atom,atom,...<TAB>twins" per document.
func ReadMemberships(r io.Reader) (Memberships, error) {
	br := bufio.NewReader(r)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("pooling: memberships: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(nil, 1<<20)
	m := Memberships{}
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("pooling: memberships line %d: want at least 3 tab-separated fields, got %d", line, len(f))
		}
		for _, a := range strings.Split(f[2], ",") {
			if a = strings.TrimSpace(a); a != "" {
				if m[a] == nil {
					m[a] = map[string]bool{}
				}
				m[a][f[0]] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pooling: memberships line %d: %w", line+1, err)
	}
	return m, nil
}

// AtomIDs reads the atom ids of a DebQUEST query from its metadata
// ("atoms": ids in query order, the order of the expression's leaves).
func AtomIDs(metadata json.RawMessage) ([]string, error) {
	var md struct {
		Atoms []string `json:"atoms"`
	}
	if err := json.Unmarshal(metadata, &md); err != nil {
		return nil, fmt.Errorf("pooling: query metadata: %w", err)
	}
	return md.Atoms, nil
}

// GoldSets evaluates e over the memberships of its atoms: the answer set
// and the explicit negatives (documents satisfying the positive part and
// carrying a negated atom), both sorted.
func GoldSets(e *boolexpr.Expr, atomIDs []string, m Memberships) (answers, negatives []string, err error) {
	sets := make([]map[string]bool, len(atomIDs))
	for i, a := range atomIDs {
		if m[a] == nil {
			return nil, nil, fmt.Errorf("pooling: atom %q has no members", a)
		}
		sets[i] = m[a]
	}
	ans, err := e.Eval(sets, nil)
	if err != nil {
		return nil, nil, err
	}
	neg, err := e.ExplicitNegatives(sets, nil)
	if err != nil {
		return nil, nil, err
	}
	return sortedKeys(ans), sortedKeys(neg), nil
}

func sortedKeys(s map[string]bool) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
