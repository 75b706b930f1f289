package retrieval

import (
	"context"
	"sort"

	"boolpool/server/store"
)

// PgVectors is the VectorIndex of one project and dense encoder in
// pgvector (HNSW kNN; exact similarities for re-scoring).
type PgVectors struct {
	Store     *store.Store
	ProjectID int64
	Encoder   store.EncoderInfo
}

// Search implements VectorIndex. It fetches a few more than k neighbours and
// cuts after sorting by (similarity, id), so that documents tied at the
// cut-off are chosen by id rather than by HNSW traversal order (ties larger
// than the slack remain arbitrary).
func (p *PgVectors) Search(ctx context.Context, vec []float32, k int) ([]Result, error) {
	docs, err := p.Store.NearestDocuments(ctx, p.ProjectID, p.Encoder, vec, k+k/10+10)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(docs))
	for i, d := range docs {
		out[i] = Result{DocID: d.ExtID, Score: d.Score}
	}
	return sortResults(out, k), nil
}

// Similarities implements VectorIndex.
func (p *PgVectors) Similarities(ctx context.Context, vec []float32, docIDs []string) (map[string]float64, error) {
	return p.Store.DocumentSimilarities(ctx, p.ProjectID, p.Encoder, vec, docIDs)
}

// Size implements VectorIndex.
func (p *PgVectors) Size(ctx context.Context) (int, error) {
	return p.Store.CountEmbeddings(ctx, p.ProjectID, p.Encoder.ID)
}

var _ idVectors = (*PgVectors)(nil)

// SearchIDs implements idVectors: Search's documents by store id. The
// neighbours come without their external ids; only when documents tied
// at the k-th score do not all fit are the tied ones' external ids read
// to choose among them, as Search chooses.
func (p *PgVectors) SearchIDs(ctx context.Context, vec []float32, k int) ([]idResult, error) {
	docs, err := p.Store.NearestDocumentIDs(ctx, p.ProjectID, p.Encoder, vec, k+k/10+10)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Score > docs[j].Score })
	out := make([]idResult, len(docs))
	for i, d := range docs {
		out[i] = idResult{ID: d.ID, Score: d.Score}
	}
	if k <= 0 || len(out) <= k {
		return out, nil
	}
	cut := out[k-1].Score
	first := k - 1 // the tied group at the cut-off: out[first:last]
	for first > 0 && out[first-1].Score == cut {
		first--
	}
	last := k
	for last < len(out) && out[last].Score == cut {
		last++
	}
	if last == k {
		return out[:k], nil
	}
	tied := out[first:last]
	ids := make([]int64, len(tied))
	for i, r := range tied {
		ids[i] = r.ID
	}
	ext, err := p.ExtIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	sort.Slice(tied, func(i, j int) bool { return ext[tied[i].ID] < ext[tied[j].ID] })
	return out[:k], nil
}

// SimilaritiesByID implements idVectors.
func (p *PgVectors) SimilaritiesByID(ctx context.Context, vec []float32, ids []int64) (map[int64]float64, error) {
	return p.Store.DocumentSimilaritiesByID(ctx, p.ProjectID, p.Encoder, vec, ids)
}

// ExtIDs implements idVectors.
func (p *PgVectors) ExtIDs(ctx context.Context, ids []int64) (map[int64]string, error) {
	return p.Store.DocumentExtIDs(ctx, p.ProjectID, ids)
}
