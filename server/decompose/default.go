package decompose

import (
	_ "embed"
	"sync"
)

// The shipped model, trained by `boolpool decompose train` from QUEST
// train (its held-out part excluded) and DebQUEST train.
//
//go:embed model/decomposer.json.gz
var embeddedModel []byte

// defaultModel loads the embedded model once; it is read-only afterwards.
var defaultModel = sync.OnceValues(func() (*Model, error) { return ReadModelBytes(embeddedModel) })

// DefaultModel returns the embedded learned decomposer, or the error that
// kept it from loading (then Decompose uses the rules).
func DefaultModel() (*Model, error) { return defaultModel() }

// Decompose splits query into atoms and an expression with the default
// decomposer: the embedded learned model, falling back to the rules when
// the model is missing or unsure (see Model.Decompose). It never fails.
func Decompose(query string) Result {
	if m, err := defaultModel(); err == nil {
		return m.Decompose(query)
	}
	return Rules(query)
}
