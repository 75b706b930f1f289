// Package retrieval implements boolpool's Boolean-aware retrieval methods
// (DESIGN §3): lexical BM25, strict Boolean BM25 over atoms, p-norm extended
// Boolean, dense vanilla kNN, decomposed-query set operations, dense vector
// algebra, the sparse linear-algebra operators of Krasakis, Yates & Kanoulas
// (Disentangled Negation, MaxPool union, Combined Pseudo-Terms) and
// reciprocal rank fusion.
//
// Every method has a name, documented parameters (Specs) and is
// deterministic: scores are computed in a fixed order and ties are broken by
// document id. RunAll runs a method over all queries of a project in
// parallel. HTTP handlers and the CLI share New and RunAll.
package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
	"boolpool/server/progress"
)

// Query is one query as the methods see it.
type Query struct {
	ID       string         // external id (the TREC qid)
	RowID    int64          // queries.id, 0 when not stored
	Text     string         // the full query text
	Atoms    []string       // atom texts, indexed by the expression's leaves
	Expr     *boolexpr.Expr // nil: the text is one atom
	Template string
}

// Expression returns the query's expression, defaulting to a single atom
// made of the whole text.
func (q Query) Expression() (*boolexpr.Expr, []string) {
	if q.Expr == nil || len(q.Atoms) == 0 {
		return boolexpr.Atom(0), []string{q.Text}
	}
	return q.Expr, q.Atoms
}

// Result is one ranked document.
type Result struct {
	DocID string  `json:"doc"`
	Score float64 `json:"score"`
}

// Method retrieves a ranked list for one query. Implementations are safe
// for concurrent use.
type Method interface {
	Name() string
	Retrieve(ctx context.Context, q Query, k int) ([]Result, error)
}

// ParamSpec documents one parameter of a method.
type ParamSpec struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// Needs says which resources a method uses.
type Needs string

// Resources a method may need.
const (
	NeedsLexical Needs = "lexical"
	NeedsDense   Needs = "dense"
	NeedsRuns    Needs = "runs"
)

// Spec describes a method.
type Spec struct {
	Name    string      `json:"name"`
	Summary string      `json:"summary"`
	Needs   Needs       `json:"needs"`
	Params  []ParamSpec `json:"params"`
	// Plain names the method a Boolean method amounts to on a query without
	// an expression (its text is then one atom); "" = not a Boolean method.
	Plain string `json:"plain,omitempty"`
	build func(p Params, d Deps) (Method, error)
}

// Deps are the resources methods draw on; only the ones a method Needs must
// be set.
type Deps struct {
	Lexical *lexical.Index
	Dense   *Dense
	// Runs holds already computed runs for fusion: run name → query id →
	// ranked results.
	Runs map[string]map[string][]Result
}

// Specs lists every method, in a stable order.
func Specs() []Spec {
	return []Spec{
		specBM25, specStrict, specPNorm,
		specDenseVanilla, specDenseDecomposed, specDenseAlgebra,
		specSparseDN, specSparseMax, specSparseCPT,
		specRRF,
	}
}

// SpecByName finds a method's spec.
func SpecByName(name string) (Spec, bool) {
	for _, s := range Specs() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// New builds the method called name with the given parameters (unknown
// parameters are an error; missing ones take their defaults).
func New(name string, params map[string]string, d Deps) (Method, error) {
	spec, ok := SpecByName(name)
	if !ok {
		return nil, unknownMethod(name)
	}
	p, err := resolveParams(spec, params)
	if err != nil {
		return nil, err
	}
	switch spec.Needs {
	case NeedsLexical:
		if d.Lexical == nil {
			return nil, fmt.Errorf("retrieval: %s needs the lexical index", name)
		}
	case NeedsDense:
		if d.Dense == nil || d.Dense.Encoder == nil || d.Dense.Vectors == nil {
			return nil, fmt.Errorf("retrieval: %s needs a dense encoder and vector index", name)
		}
	}
	return spec.build(p, d)
}

func unknownMethod(name string) error {
	names := make([]string, 0)
	for _, s := range Specs() {
		names = append(names, s.Name)
	}
	return fmt.Errorf("retrieval: unknown method %q (known: %s)", name, strings.Join(names, ", "))
}

// Params are a method's resolved parameters (every spec'd name present).
type Params struct {
	method string
	values map[string]string
}

// Map returns the parameters as a map (for storing with the run).
func (p Params) Map() map[string]string {
	out := make(map[string]string, len(p.values))
	for k, v := range p.values {
		out[k] = v
	}
	return out
}

// JSON returns the parameters as a JSON object.
func (p Params) JSON() json.RawMessage {
	b, _ := json.Marshal(p.values)
	return b
}

func resolveParams(spec Spec, given map[string]string) (Params, error) {
	p := Params{method: spec.Name, values: map[string]string{}}
	for _, ps := range spec.Params {
		p.values[ps.Name] = ps.Default
	}
	for k, v := range given {
		if _, ok := p.values[k]; !ok {
			var known []string
			for _, ps := range spec.Params {
				known = append(known, ps.Name)
			}
			return Params{}, fmt.Errorf("retrieval: %s has no parameter %q (parameters: %s)", spec.Name, k, strings.Join(known, ", "))
		}
		p.values[k] = v
	}
	return p, nil
}

// ResolveParams returns the full parameter set New would use.
func ResolveParams(name string, given map[string]string) (map[string]string, error) {
	spec, ok := SpecByName(name)
	if !ok {
		return nil, unknownMethod(name)
	}
	p, err := resolveParams(spec, given)
	if err != nil {
		return nil, err
	}
	return p.Map(), nil
}

func (p Params) str(name string) string { return p.values[name] }

func (p Params) float(name string) (float64, error) {
	s := p.values[name]
	if s == "inf" || s == "+inf" {
		return inf, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("retrieval: %s: parameter %s=%q is not a number", p.method, name, s)
	}
	return f, nil
}

func (p Params) int(name string, minimum int) (int, error) {
	n, err := strconv.Atoi(p.values[name])
	if err != nil || n < minimum {
		return 0, fmt.Errorf("retrieval: %s: parameter %s=%q must be an integer >= %d", p.method, name, p.values[name], minimum)
	}
	return n, nil
}

func (p Params) choice(name string, options ...string) (string, error) {
	v := p.values[name]
	for _, o := range options {
		if v == o {
			return v, nil
		}
	}
	return "", fmt.Errorf("retrieval: %s: parameter %s=%q must be one of %s", p.method, name, v, strings.Join(options, ", "))
}

// sortResults orders results best first, ties by document id, and cuts to k
// (k <= 0 keeps all).
func sortResults(rs []Result, k int) []Result {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].DocID < rs[j].DocID
	})
	if k > 0 && len(rs) > k {
		rs = rs[:k]
	}
	return rs
}

// RunAll runs m over queries with `workers` goroutines and returns the
// results by query id. A progress bar (rate, ETA) goes to bar when it is
// not nil. The first error cancels the rest.
func RunAll(ctx context.Context, m Method, queries []Query, k, workers int, bar io.Writer) (map[string][]Result, error) {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pb := progress.New(bar, m.Name(), "", len(queries), 0)
	defer pb.Done()
	out := make([][]Result, len(queries))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(queries) || ctx.Err() != nil {
					return
				}
				rs, err := m.Retrieve(ctx, queries[i], k)
				if err != nil {
					once.Do(func() {
						firstErr = fmt.Errorf("retrieval: %s: query %s: %w", m.Name(), queries[i].ID, err)
						cancel()
					})
					return
				}
				out[i] = rs
				pb.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := make(map[string][]Result, len(queries))
	for i, q := range queries {
		res[q.ID] = out[i]
	}
	return res, nil
}
