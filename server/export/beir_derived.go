package export

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// BEIR with derived qrels (issue 13). BEIR's qrels TSV has fixed columns
// (query-id, corpus-id, score), so with qrels derived or both the source
// of every qrel goes to a sidecar qrels/<split>.source.tsv with the
// columns query-id, corpus-id, source, line for line beside the qrels:
//
//   - direct: the project's imported qrels (what the BEIR export always
//     wrote); no sidecar.
//   - derived: the labels derived from the atoms' labels under each
//     query's expression, score 1 (true) or 0 (false); unknown ones are
//     left out. Source "derived".
//   - both: the imported qrels, then the derived labels of pairs without
//     one. An imported qrel's source is "direct", "both" when the derived
//     label is known and agrees, "direct-conflict" when it disagrees (the
//     imported score is written).

// BEIRSourceSidecar is the name of a split's source sidecar in qrels/.
func BEIRSourceSidecar(split string) string { return split + ".source.tsv" }

// IsBEIRSourceSidecar reports whether a file name under qrels/ is a source
// sidecar (the BEIR importer skips them).
func IsBEIRSourceSidecar(name string) bool { return strings.HasSuffix(name, ".source.tsv") }

// beirQrel is one qrel of a derived or both BEIR export.
type beirQrel struct {
	query, doc string
	score      int
	source     string
}

// beirQrelsMode computes the qrels of a derived or both BEIR export.
func beirQrelsMode(ctx context.Context, st *store.Store, projectID int64, method, mode string) ([]beirQrel, error) {
	set, order, err := derivedSet(ctx, st, projectID, method)
	if err != nil {
		return nil, err
	}
	var rows []beirQrel
	direct := map[[2]string]bool{}
	if mode == vocab.QrelsBoth {
		known := map[[2]string]boolexpr.Truth{}
		for q, qr := range set {
			for _, r := range qr {
				if r.Derived != boolexpr.Unknown {
					known[[2]string{q, r.Doc}] = r.Derived
				}
			}
		}
		err := st.EachMergedQrel(ctx, projectID, "positive", func(r store.Qrel) error {
			pair := [2]string{r.QueryExtID, r.DocExtID}
			direct[pair] = true
			src := string(atoms.Direct)
			if d, ok := known[pair]; ok {
				if (d == boolexpr.True) == (r.Relevance > 0) {
					src = string(atoms.Both)
				} else {
					src = "direct-conflict"
				}
			}
			rows = append(rows, beirQrel{r.QueryExtID, r.DocExtID, r.Relevance, src})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, q := range order {
		for _, r := range set[q] {
			if r.Derived == boolexpr.Unknown || direct[[2]string{q, r.Doc}] {
				continue
			}
			score := 0
			if r.Derived == boolexpr.True {
				score = 1
			}
			rows = append(rows, beirQrel{q, r.Doc, score, string(atoms.Derived)})
		}
	}
	return rows, nil
}

// writeBEIRQrels writes rows as BEIR qrels (query-id, corpus-id, score) or,
// with sources, as the sidecar (query-id, corpus-id, source).
func writeBEIRQrels(w *bufio.Writer, rows []beirQrel, sources bool) (Counts, error) {
	var c Counts
	header := "query-id\tcorpus-id\tscore\n"
	if sources {
		header = "query-id\tcorpus-id\tsource\n"
	}
	if _, err := w.WriteString(header); err != nil {
		return c, err
	}
	for _, r := range rows {
		var err error
		if sources {
			_, err = fmt.Fprintf(w, "%s\t%s\t%s\n", r.query, r.doc, r.source)
		} else {
			_, err = fmt.Fprintf(w, "%s\t%s\t%d\n", r.query, r.doc, r.score)
		}
		if err != nil {
			return c, err
		}
		c.Qrels++
		c.Lines++
	}
	return c, nil
}
