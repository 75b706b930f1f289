package retrieval

import (
	"context"

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
