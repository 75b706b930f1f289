package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"boolpool/server/apperr"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// IndexResult is what an index job stores as its result.
type IndexResult struct {
	Documents int     `json:"documents"`
	Terms     int     `json:"terms"`
	AvgDocLen float64 `json:"avg_doc_len"`
	Encoder   string  `json:"encoder,omitempty"`
	Vectors   int     `json:"vectors,omitempty"` // of the encoder, under its HNSW index
}

// Index is the job kind of `boolpool index`: a project's lexical (BM25)
// index, and with an encoder its pgvector HNSW index. Building again is
// harmless, so a retry simply starts over.
func Index(st *store.Store, log *slog.Logger) Kind {
	return ParamsKind(QueueDefault, indexParams, func(ctx context.Context, a Attempt, p IndexParams) (any, error) {
		a.Report("building the lexical index", 0, 0)
		ix, err := retrieval.BuildLexical(ctx, st, a.Job.ProjectID, lexical.Params{K1: p.K1, B: p.B}, log)
		if err != nil {
			return nil, err
		}
		res := IndexResult{Documents: ix.NumDocs(), Terms: ix.NumTerms(), AvgDocLen: ix.AvgDocLen()}
		a.Report("lexical index built", res.Documents, res.Documents)
		if p.Encoder == "" {
			return res, nil
		}
		enc, err := st.EncoderByName(ctx, p.Encoder)
		if errors.Is(err, store.ErrNotFound) {
			return nil, Permanent(fmt.Errorf("encoder %q has no embeddings yet (run an encode job first): %w", p.Encoder, err))
		}
		if err != nil {
			return nil, err
		}
		a.Report("building the HNSW index of "+enc.Name, 0, 0)
		if _, err := st.EnsureHNSW(ctx, a.Job.ProjectID, enc); err != nil {
			return nil, err
		}
		if err := st.AnalyzeEmbeddings(ctx); err != nil {
			return nil, err
		}
		n, err := st.CountEmbeddings(ctx, a.Job.ProjectID, enc.ID)
		if err != nil {
			return nil, err
		}
		res.Encoder, res.Vectors = enc.Name, n
		a.Report("HNSW index built", n, n)
		return res, nil
	})
}

// indexParams decodes and checks an index job's parameters, filling the
// BM25 defaults.
func indexParams(raw json.RawMessage) (IndexParams, error) {
	var p IndexParams
	if err := strictJSON(raw, &p); err != nil {
		return p, err
	}
	def := lexical.DefaultParams()
	if p.K1 == 0 {
		p.K1 = def.K1
	}
	if p.B == 0 {
		p.B = def.B
	}
	if p.K1 < 0 || p.K1 > 10 {
		return p, apperr.Invalidf("params.k1", "must be between 0 and 10")
	}
	if p.B < 0 || p.B > 1 {
		return p, apperr.Invalidf("params.b", "must be between 0 and 1")
	}
	return p, nil
}
