package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// boolqCtx is one context of a BoolQuestions record.
type boolqCtx struct {
	Title     string `json:"title"`
	Text      string `json:"text"`
	PassageID string `json:"passage_id"`
}

// boolqQueries writes one BoolQuestions record per query: positive_ctxs
// from the positive qrels (relevance >= 1), negative_ctxs from the explicit
// negatives, with the stored document texts. Hard negatives are kept only
// as documents on import, so they are not written back.
func boolqQueries(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	pos, neg := map[string][]string{}, map[string][]string{}
	err := st.EachQrel(ctx, projectID, "", "", func(r store.Qrel) error {
		switch {
		case r.Kind == "negative":
			neg[r.QueryExtID] = appendOnce(neg[r.QueryExtID], r.DocExtID)
		case r.Relevance >= 1:
			pos[r.QueryExtID] = appendOnce(pos[r.QueryExtID], r.DocExtID)
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	ctxs := func(ids []string) ([]boolqCtx, error) {
		out := []boolqCtx{}
		for _, id := range ids {
			d, err := st.DocumentByExtID(ctx, projectID, id)
			if err != nil && !errors.Is(err, apperr.ErrNotFound) {
				return nil, err
			}
			out = append(out, boolqCtx{Title: d.Title, Text: d.Body, PassageID: id})
		}
		return out, nil
	}
	err = st.EachQuery(ctx, projectID, func(q store.Query) error {
		var md struct {
			QuestionType string `json:"question_type"`
		}
		_ = json.Unmarshal(q.Metadata, &md)
		p, err := ctxs(pos[q.ExtID])
		if err != nil {
			return err
		}
		n, err := ctxs(neg[q.ExtID])
		if err != nil {
			return err
		}
		c.Queries++
		c.Lines++
		c.Qrels += len(p) + len(n)
		return writeObject(w, member{"id", jsonValue(q.ExtID)}, member{"question", jsonValue(q.Text)},
			member{"question_type", jsonValue(md.QuestionType)}, member{"positive_ctxs", jsonValue(p)}, member{"negative_ctxs", jsonValue(n)})
	})
	return c, err
}

// nevirPairs writes the NevIR pairs imported with the nevir format (queries
// "<id>-q1"/"<id>-q2", documents "<id>-doc1"/"<id>-doc2"), in pair order.
func nevirPairs(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	type pair struct {
		q1, q2 string
		seq    int
	}
	pairs := map[string]*pair{}
	err := st.EachQuery(ctx, projectID, func(q store.Query) error {
		var md struct {
			Pair string `json:"nevir_pair"`
		}
		if json.Unmarshal(q.Metadata, &md) != nil || md.Pair == "" {
			return nil
		}
		p := pairs[md.Pair]
		if p == nil {
			p = &pair{seq: q.Seq}
			pairs[md.Pair] = p
		}
		switch {
		case strings.HasSuffix(q.ExtID, "-q1"):
			p.q1 = q.Text
		case strings.HasSuffix(q.ExtID, "-q2"):
			p.q2 = q.Text
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	ids := slices.Collect(maps.Keys(pairs))
	sort.Slice(ids, func(i, j int) bool { return pairs[ids[i]].seq < pairs[ids[j]].seq })
	for _, id := range ids {
		var docs [2]string
		for k := range docs {
			d, err := st.DocumentByExtID(ctx, projectID, id+"-doc"+string(rune('1'+k)))
			if err != nil {
				return c, err
			}
			docs[k] = d.Body
		}
		c.Lines++
		c.Queries += 2
		c.Documents += 2
		if err := writeObject(w, member{"id", jsonValue(id)}, member{"q1", jsonValue(pairs[id].q1)}, member{"q2", jsonValue(pairs[id].q2)},
			member{"doc1", jsonValue(docs[0])}, member{"doc2", jsonValue(docs[1])}); err != nil {
			return c, err
		}
	}
	return c, nil
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
