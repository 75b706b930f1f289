package app

import (
	"context"
	"errors"
	"fmt"

	"boolpool/encoders"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// OpenRuntime opens the encoders' ONNX Runtime: the one place the program
// does (the jobs New registers, `boolpool encode`, `embed`, `retrieve`,
// `model prepare`, `pool caldense` and `bench`). The caller closes it.
func OpenRuntime(cfg encoders.Config) (*encoders.Runtime, error) {
	return encoders.NewRuntime(cfg)
}

// PgvectorIndex is the project's pgvector index of encoder's document
// vectors, its HNSW index built if missing: the vectors of a dense method
// run as a job or by `boolpool retrieve --vectors pgvector`.
func PgvectorIndex(ctx context.Context, st *store.Store, p store.Project, encoder string) (retrieval.VectorIndex, error) {
	info, err := st.EncoderByName(ctx, encoder)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("no document vectors of encoder %q: encode the project's documents first (or use --vectors memory)", encoder)
	}
	if err != nil {
		return nil, err
	}
	if n, err := st.CountEmbeddings(ctx, p.ID, info.ID); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, fmt.Errorf("project %s has no document vectors of encoder %q (or use --vectors memory)", p.Name, encoder)
	}
	if _, err := st.EnsureHNSW(ctx, p.ID, info); err != nil {
		return nil, err
	}
	return &retrieval.PgVectors{Store: st, ProjectID: p.ID, Encoder: info}, nil
}
