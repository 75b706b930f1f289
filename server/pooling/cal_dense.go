package pooling

import (
	"context"
	"fmt"

	"boolpool/server/cal"
	"boolpool/server/lexical"
	"boolpool/server/store"
)

// CALFeaturesLexical and CALFeaturesDense name cal's feature sets:
// tf–idf of the lexical index alone, or joined with the documents' stored
// embeddings of a dense encoder and the query-cosine feature.
const (
	CALFeaturesLexical = "lexical"
	CALFeaturesDense   = "lexical+dense"
)

// CALDenseWeight is the dense block's norm in a row (the lexical blocks
// share the rest) and CALQueryCosine the query-cosine feature's weight of
// the lexical+dense features.
const (
	CALDenseWeight = 0.35
	CALQueryCosine = 1.0
)

// CALDenseEngine is a cal engine over ix's tf–idf joined with the
// project's stored vectors of the dense encoder (`boolpool encode`); every
// indexed document needs one.
func CALDenseEngine(ctx context.Context, st *store.Store, projectID int64, ix *lexical.Index, encoder string) (*cal.Engine, error) {
	enc, err := st.EncoderByName(ctx, encoder)
	if err != nil {
		return nil, err
	}
	vecs := make([][]float32, ix.NumDocs())
	err = st.EachDocumentVector(ctx, projectID, enc, func(id string, v []float32) error {
		if d, ok := ix.DocNum(id); ok {
			vecs[d] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for d, v := range vecs {
		if v == nil {
			return nil, fmt.Errorf("pooling: document %q has no %s vector (run boolpool encode --encoder %s)", ix.DocID(uint32(d)), encoder, encoder)
		}
	}
	opt := cal.DefaultFeatureOptions()
	opt.Dense, opt.DenseWeight = vecs, CALDenseWeight
	f, err := cal.FromIndexWith(ix, opt)
	if err != nil {
		return nil, err
	}
	eo := cal.DefaultOptions()
	eo.QueryCosine = CALQueryCosine
	return cal.NewEngine(f, eo), nil
}
