package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Qrels modes of qrels-consensus and quest-judged (Options.Qrels, issue 13):
//
//   - direct (the default): the consensus of relevance judgments, as before.
//   - derived: only labels derived from the atoms' labels (constraint
//     judgments and imports) under each query's expression; unknown ones
//     are left out.
//   - both: the direct labels, and the derived ones where no direct label
//     exists.
//
// Every qrel of a derived or both export says where it comes from:
// qrels-consensus gets a fifth column (space-separated like the four) (direct, derived, both = known both
// ways and agreeing, direct-conflict = direct disagrees with derived, the
// direct label is written), quest-judged a metadata field "qrels_source"
// (document → source, with "answer" for an imported answer not judged)
// and "docs_unknown" (documents whose derived label is still unknown).

// ValidQrels reports whether mode is a qrels mode ("" = direct).
func ValidQrels(mode string) bool {
	return mode == "" || mode == vocab.QrelsDirect || mode == vocab.QrelsDerived || mode == vocab.QrelsBoth
}

// derivedSet brings the constraint consensus up to date and derives every
// atom query's qrels: query ext id → qrels (with direct labels by method).
func derivedSet(ctx context.Context, st *store.Store, projectID int64, method string) (map[string][]atoms.Qrel, []string, error) {
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return nil, nil, err
	}
	if _, err := consensus.SyncConstraints(ctx, st, projectID); err != nil {
		return nil, nil, err
	}
	qs, labels, direct, err := projectDerived(ctx, st, projectID, method)
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]atoms.Qrel{}
	order := make([]string, 0, len(qs))
	for _, q := range qs {
		qr, err := deriveWithDirect(q, labels, direct[q.ID])
		if err != nil {
			return nil, nil, err
		}
		out[q.ID] = qr
		order = append(order, q.ID)
	}
	return out, order, nil
}

// consensusQrelsMode writes qrels-consensus with derived labels (mode
// derived or both), five columns.
func consensusQrelsMode(ctx context.Context, st *store.Store, projectID int64, method, mode string, w *bufio.Writer) (Counts, error) {
	var c Counts
	set, order, err := derivedSet(ctx, st, projectID, method)
	if err != nil {
		return c, err
	}
	ids, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return c, err
	}
	write := func(q, d string, grade int, src string) error {
		c.Qrels++
		c.Lines++
		_, err := fmt.Fprintf(w, "%s 0 %s %d %s\n", ids.Queries.Encode(q), ids.Docs.Encode(d), grade, src)
		return err
	}
	if mode == vocab.QrelsBoth {
		byPair := map[[2]string]atoms.Qrel{}
		for q, qr := range set {
			for _, r := range qr {
				byPair[[2]string{q, r.Doc}] = r
			}
		}
		err := eachConsensusQrel(ctx, st, projectID, method, func(r store.ConsensusQrel) error {
			src := string(atoms.Direct)
			if d, ok := byPair[[2]string{r.QueryExtID, r.DocExtID}]; ok {
				switch {
				case d.Conflict:
					src = "direct-conflict"
				case d.Source == atoms.Both:
					src = string(atoms.Both)
				}
			}
			return write(r.QueryExtID, r.DocExtID, r.Relevance, src)
		})
		if err != nil {
			return c, err
		}
	}
	for _, q := range order {
		for _, r := range set[q] {
			if r.Derived == boolexpr.Unknown || (mode == vocab.QrelsBoth && r.Source != atoms.Derived) {
				continue
			}
			grade := 0
			if r.Derived == boolexpr.True {
				grade = 1
			}
			if err := write(q, r.Doc, grade, string(atoms.Derived)); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// withDerived applies a derived or both mode to one quest-judged line: the
// docs (derived: the derived relevant documents; both: docs plus derived
// relevant documents without a direct label) and the metadata fields
// qrels_source and docs_unknown. qr is the query's derived qrels (nil for
// a query without atoms).
func withDerived(mode string, docs []string, md json.RawMessage, qr []atoms.Qrel, imported map[string]bool) ([]string, json.RawMessage, error) {
	source := map[string]string{}
	byDoc := map[string]atoms.Qrel{}
	unknown := 0
	for _, r := range qr {
		byDoc[r.Doc] = r
		if r.Derived == boolexpr.Unknown && r.Source == atoms.Derived {
			unknown++
		}
	}
	var out []string
	if mode == vocab.QrelsBoth {
		for _, d := range docs {
			out = append(out, d)
			r, ok := byDoc[d]
			switch {
			case ok && r.Source == atoms.Both:
				source[d] = string(atoms.Both)
			case ok && r.Conflict:
				source[d] = "direct-conflict"
			case ok && r.Source == atoms.Direct:
				source[d] = string(atoms.Direct)
			case imported[d]:
				source[d] = "answer"
			default:
				source[d] = string(atoms.Direct)
			}
		}
	}
	var extra []string
	for _, r := range qr {
		if r.Derived != boolexpr.True {
			continue
		}
		if mode == vocab.QrelsBoth && (r.Source != atoms.Derived || source[r.Doc] != "") {
			continue
		}
		extra = append(extra, r.Doc)
		source[r.Doc] = string(atoms.Derived)
	}
	sort.Strings(extra)
	out = append(out, extra...)
	if out == nil {
		out = []string{}
	}
	srcObj := orderedObject{}
	for _, d := range out {
		srcObj.add(d, jsonValue(source[d]))
	}
	md2, err := replaceKeys(md, map[string][]byte{"qrels_source": srcObj.bytes(), "docs_unknown": jsonValue(unknown)},
		[]string{"qrels_source", "docs_unknown"})
	if err != nil {
		return nil, nil, err
	}
	return out, md2, nil
}
