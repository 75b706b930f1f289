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
)

// Derived-qrels formats (issue 13):
//
//   - qrels-derived: TREC qrels with a fifth column saying where each label
//     comes from: "query 0 doc relevance source", source derived (from the
//     atoms' labels under the query's expression), direct (a consensus
//     judgment of the whole pair) or both (known both ways and agreeing).
//     Relevance is 1/0 for derived labels and the consensus grade for
//     direct ones; where direct and derived disagree the direct label is
//     written with source "direct-conflict". Pairs whose label is unknown
//     (an unsure or unjudged atom that matters) are left out.
//   - quest-variants: QUEST jsonl of the generated variant queries, docs =
//     their derived relevant documents, metadata with the template, the
//     source query (variant_of), its template, the expression, and
//     "docs_source": "derived" with the count of still-unknown documents.

// projectDerived loads the project's atom queries and labels and the
// direct (consensus) labels: query ext id → doc → grade.
func projectDerived(ctx context.Context, st *store.Store, projectID int64, method string) ([]atoms.Query, atoms.Labels, map[string]map[string]int, error) {
	qs, err := atoms.LoadQueries(ctx, st, projectID)
	if err != nil {
		return nil, nil, nil, err
	}
	labels, err := atoms.LoadLabels(ctx, st, projectID)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, nil, nil, err
	}
	direct, err := consensusGrades(ctx, st, projectID, method)
	if err != nil {
		return nil, nil, nil, err
	}
	return qs, labels, direct, nil
}

// deriveWithDirect derives q's qrels from the atom labels, with direct,
// the query's consensus grades by document, as its direct labels.
func deriveWithDirect(q atoms.Query, labels atoms.Labels, direct map[string]int) ([]atoms.Qrel, error) {
	rel := map[string]bool{}
	for d, g := range direct {
		rel[d] = g >= consensus.RelevantThreshold
	}
	return atoms.DeriveQrels(q, labels, rel, false)
}

func derivedQrels(ctx context.Context, st *store.Store, projectID int64, method string, w *bufio.Writer) (Counts, error) {
	var c Counts
	qs, labels, direct, err := projectDerived(ctx, st, projectID, method)
	if err != nil {
		return c, err
	}
	ids, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return c, err
	}
	for _, q := range qs {
		qr, err := deriveWithDirect(q, labels, direct[q.ID])
		if err != nil {
			return c, err
		}
		if len(qr) > 0 {
			c.Queries++
		}
		for _, r := range qr {
			if r.Label == boolexpr.Unknown {
				continue
			}
			grade := 0
			if r.Relevant() {
				grade = 1
			}
			src := string(r.Source)
			if r.Source != atoms.Derived {
				grade = direct[q.ID][r.Doc]
			}
			if r.Conflict {
				src = "direct-conflict"
			}
			if _, err := fmt.Fprintf(w, "%s\t0\t%s\t%d\t%s\n", ids.Queries.Encode(q.ID), ids.Docs.Encode(r.Doc), grade, src); err != nil {
				return c, err
			}
			c.Qrels++
			c.Lines++
		}
	}
	return c, nil
}

func questVariants(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	qs, labels, _, err := projectDerived(ctx, st, projectID, consensus.MethodMajority)
	if err != nil {
		return c, err
	}
	byExt := map[string]atoms.Query{}
	for _, q := range qs {
		byExt[q.ID] = q
	}
	sources, err := st.VariantSources(ctx, projectID)
	if err != nil {
		return c, err
	}
	err = st.EachQuery(ctx, projectID, func(q store.Query) error {
		if _, ok := sources[q.ID]; !ok {
			return nil
		}
		aq, ok := byExt[q.ExtID]
		if !ok {
			return fmt.Errorf("export: variant %s has no atom links (run the atom sync)", q.ExtID)
		}
		qr, err := atoms.DeriveQrels(aq, labels, nil, false)
		if err != nil {
			return err
		}
		docs, unknown := []string{}, 0
		for _, r := range qr {
			switch r.Label {
			case boolexpr.True:
				docs = append(docs, r.Doc)
			case boolexpr.Unknown:
				unknown++
			}
		}
		sort.Strings(docs)
		md := map[string]any{}
		if len(q.Metadata) > 0 {
			if err := json.Unmarshal(q.Metadata, &md); err != nil {
				return fmt.Errorf("export: variant %s metadata: %w", q.ExtID, err)
			}
		}
		md["template"] = q.Template
		md["docs_source"] = "derived"
		md["docs_unknown"] = unknown
		b := []byte{'{'}
		b = field(b, true, "query", jsonValue(q.Text))
		b = field(b, false, "docs", jsonValue(docs))
		b = field(b, false, "original_query", jsonValue(q.OriginalQuery))
		b = field(b, false, "scores", []byte("null"))
		b = field(b, false, "metadata", jsonValue(md))
		b = append(b, "}\n"...)
		c.Queries++
		c.Lines++
		c.Qrels += len(docs)
		_, err = w.Write(b)
		return err
	})
	return c, err
}
