package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
	"boolpool/server/store"
)

// BuildLexical (re)builds a project's lexical index from its documents and
// persists it in the store.
func BuildLexical(ctx context.Context, st *store.Store, projectID int64, p lexical.Params, log *slog.Logger) (*lexical.Index, error) {
	start := time.Now()
	fp, _, err := st.CorpusFingerprint(ctx, projectID)
	if err != nil {
		return nil, err
	}
	b := lexical.NewBuilder(ctx, p, runtime.GOMAXPROCS(0)) // streamed: no document's text is held past its batch
	defer b.Close()
	err = st.EachDocument(ctx, projectID, func(d store.Document) error {
		return b.Add(lexical.Doc{ExtID: d.ExtID, Title: d.Title, Body: d.Body})
	})
	if err != nil {
		return nil, err
	}
	ix, err := b.Finish()
	if err != nil {
		return nil, err
	}
	params, _ := json.Marshal(p)
	// Encoded straight into the store's chunks: no second copy of the
	// whole index in memory.
	n, err := st.SaveLexicalIndex(ctx, store.LexicalIndexInfo{ProjectID: projectID, Fingerprint: fp,
		NumDocs: ix.NumDocs(), NumTerms: ix.NumTerms(), Params: params}, ix.Encode)
	if err != nil {
		return nil, err
	}
	log.Info("lexical index built", "project", projectID, "docs", ix.NumDocs(), "terms", ix.NumTerms(),
		"bytes", n, "took", time.Since(start).Round(time.Millisecond))
	return ix, nil
}

// LoadLexical returns a project's stored lexical index, rebuilding it
// (and storing the new one) when it is missing or stale.
func LoadLexical(ctx context.Context, st *store.Store, projectID int64, log *slog.Logger) (*lexical.Index, error) {
	fp, _, err := st.CorpusFingerprint(ctx, projectID)
	if err != nil {
		return nil, err
	}
	// Decoded as its chunks stream in (no buffer of the whole encoding);
	// a stale index's chunks are not read at all.
	var ix *lexical.Index
	err = st.ReadLexicalIndex(ctx, projectID, func(r io.Reader, size int64, stored string) error {
		if stored != fp {
			return nil
		}
		var err error
		ix, err = lexical.DecodeFrom(r, size)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		log.Info("no lexical index yet: building it")
	case err != nil:
		return nil, err
	case ix == nil:
		log.Info("lexical index is stale (documents changed): rebuilding it")
	default:
		return ix, nil
	}
	return BuildLexical(ctx, st, projectID, lexical.DefaultParams(), log)
}

// QueryFromStore converts a stored query; a missing or invalid expression
// makes the whole text one atom.
func QueryFromStore(q store.Query) (Query, error) {
	out := Query{ID: q.ExtID, RowID: q.ID, Text: q.Text, Template: q.Template}
	if len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
		return out, nil
	}
	atoms := make([]string, len(q.Atoms))
	for i, a := range q.Atoms {
		atoms[i] = a.Text
	}
	e, err := boolexpr.ParseJSON(q.Expression, len(atoms))
	if err != nil {
		return Query{}, fmt.Errorf("retrieval: query %s: %w", q.ExtID, err)
	}
	out.Atoms, out.Expr = atoms, e
	return out, nil
}

// LoadQueries returns a project's queries (one split, or all when split is
// empty) in import order.
func LoadQueries(ctx context.Context, st *store.Store, projectID int64, split string) ([]Query, error) {
	qs, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return nil, err
	}
	out := make([]Query, 0, len(qs))
	for _, q := range qs {
		rq, err := QueryFromStore(q)
		if err != nil {
			return nil, err
		}
		out = append(out, rq)
	}
	return out, nil
}

// SaveRun stores results (by query id) as the run called name.
func SaveRun(ctx context.Context, st *store.Store, projectID int64, name, method string, params map[string]string, queries []Query, results map[string][]Result) (int64, error) {
	var rows []store.RunResultIn
	for _, q := range queries {
		if q.RowID == 0 {
			return 0, fmt.Errorf("retrieval: save run: query %s is not stored", q.ID)
		}
		for i, r := range results[q.ID] {
			rows = append(rows, store.RunResultIn{QueryID: q.RowID, DocExtID: r.DocID, Rank: i + 1, Score: r.Score})
		}
	}
	p, _ := json.Marshal(params)
	return st.SaveRun(ctx, projectID, name, method, p, rows)
}

// LoadRun reads a stored run as query id → ranked results.
func LoadRun(ctx context.Context, st *store.Store, projectID int64, name string) (map[string][]Result, error) {
	id, err := st.RunIDByName(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	out := map[string][]Result{}
	err = st.EachRunRow(ctx, id, func(r store.RunRow) error {
		out[r.QueryExtID] = append(out[r.QueryExtID], Result{DocID: r.DocExtID, Score: r.Score})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
