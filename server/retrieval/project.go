package retrieval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"boolpool/server/lexical"
	"boolpool/server/store"
)

// Resources loads, once and on demand, what the methods need for one
// project: the lexical index (rebuilt when stale), stored runs for fusion,
// and the dense encoder and vectors. OpenDense is supplied by the caller
// because opening an encoder belongs to the encoders package (cgo); nil
// makes dense methods unavailable. Safe for concurrent use.
type Resources struct {
	Store     *store.Store
	ProjectID int64
	// ProjectName names the project in messages (optional).
	ProjectName string
	Log         *slog.Logger
	OpenDense   func(ctx context.Context) (*Dense, error)

	mu    sync.Mutex
	lex   *lexical.Index
	dense *Dense
}

// Lexical returns the project's lexical index.
func (r *Resources) Lexical(ctx context.Context) (*lexical.Index, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lex == nil {
		ix, err := LoadLexical(ctx, r.Store, r.ProjectID, r.logger())
		if err != nil {
			return nil, err
		}
		r.lex = ix
	}
	return r.lex, nil
}

// projectName is the project's name for messages ("P" when unknown).
func (r *Resources) projectName() string {
	if r.ProjectName != "" {
		return r.ProjectName
	}
	return "P"
}

func (r *Resources) logger() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r.Log
}

func (r *Resources) denseDeps(ctx context.Context) (*Dense, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dense == nil {
		if r.OpenDense == nil {
			return nil, fmt.Errorf("retrieval: no dense encoder configured")
		}
		d, err := r.OpenDense(ctx)
		if err != nil {
			return nil, err
		}
		r.dense = d
	}
	return r.dense, nil
}

// Method builds the method called name with its parameters, loading what
// it needs.
func (r *Resources) Method(ctx context.Context, name string, params map[string]string) (Method, error) {
	spec, ok := SpecByName(name)
	if !ok {
		return nil, unknownMethod(name)
	}
	var d Deps
	var err error
	switch spec.Needs {
	case NeedsLexical:
		if d.Lexical, err = r.Lexical(ctx); err != nil {
			return nil, err
		}
	case NeedsDense:
		if d.Dense, err = r.denseDeps(ctx); err != nil {
			return nil, err
		}
	case NeedsRuns:
		d.Runs = map[string]map[string][]Result{}
		for _, rn := range RRFRunNames(params["runs"]) {
			run, err := LoadRun(ctx, r.Store, r.ProjectID, rn)
			if err != nil {
				return nil, err
			}
			d.Runs[rn] = run
		}
	}
	return New(name, params, d)
}

// RunRequest asks for one method over a project's queries.
type RunRequest struct {
	Method  string
	Params  map[string]string
	Split   string // "" = all queries
	Depth   int    // results per query
	Name    string // run name; "" = DefaultRunName
	Workers int
	NoStore bool
	// Record holds settings stored with the run's parameters besides the
	// method's own (e.g. the encoder of a dense method).
	Record map[string]string
	// Progress, when set, is called after each retrieved query with the
	// number done and the number of queries (from several goroutines).
	Progress func(done, total int)
}

// RunSummary says what RunProject did.
type RunSummary struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	Params  map[string]string `json:"params"`
	Queries int               `json:"queries"`
	Results int               `json:"results"`
	Took    time.Duration     `json:"took_ns"`
	Stored  bool              `json:"stored"`
	// NoExpression counts the queries a Boolean method ran as its plain
	// version because they have no stored expression.
	NoExpression int `json:"no_expression,omitempty"`
	// Empty counts the queries that got an empty ranking.
	Empty int `json:"empty,omitempty"`
	// Warnings are one line each, for the CLI summary and the job result;
	// every affected query is also logged at WARN level.
	Warnings []string `json:"warnings,omitempty"`
}

// RunProject runs a method over the project's queries in parallel
// (progress to progress when not nil) and stores the run (unless NoStore).
// It returns the queries and results as well, e.g. for a TREC run file.
func RunProject(ctx context.Context, r *Resources, req RunRequest, progress io.Writer) (RunSummary, []Query, map[string][]Result, error) {
	if req.Depth < 1 {
		return RunSummary{}, nil, nil, fmt.Errorf("retrieval: depth must be positive, got %d", req.Depth)
	}
	full, err := ResolveParams(req.Method, req.Params)
	if err != nil {
		return RunSummary{}, nil, nil, err
	}
	for k, v := range req.Record {
		full[k] = v
	}
	name := req.Name
	if name == "" {
		name = DefaultRunName(req.Method, req.Params)
	}
	m, err := r.Method(ctx, req.Method, req.Params)
	if err != nil {
		return RunSummary{}, nil, nil, err
	}
	queries, err := LoadQueries(ctx, r.Store, r.ProjectID, req.Split)
	if err != nil {
		return RunSummary{}, nil, nil, err
	}
	if len(queries) == 0 {
		return RunSummary{}, nil, nil, fmt.Errorf("retrieval: the project has no queries (split %q)", req.Split)
	}
	spec, _ := SpecByName(req.Method)
	log := r.logger()
	var noExpr int
	if spec.Plain != "" {
		for _, q := range queries {
			if q.Expr == nil {
				noExpr++
				log.Warn("query has no Boolean expression: ran as plain "+spec.Plain, "method", req.Method, "query", q.ID)
			}
		}
	}
	start := time.Now()
	if req.Progress != nil {
		m = &countingMethod{Method: m, total: len(queries), report: req.Progress}
	}
	results, err := RunAll(ctx, m, queries, req.Depth, req.Workers, progress)
	if err != nil {
		return RunSummary{}, nil, nil, err
	}
	sum := RunSummary{Name: name, Method: req.Method, Params: full, Queries: len(queries), Took: time.Since(start), NoExpression: noExpr}
	for _, q := range queries {
		n := len(results[q.ID])
		sum.Results += n
		if n == 0 {
			sum.Empty++
			log.Warn("empty ranking", "method", req.Method, "query", q.ID)
		}
	}
	if noExpr > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d of %d queries have no expression: ran as plain %s "+
			"(store the decomposer's expressions with: boolpool decompose --project %s --only-missing)", noExpr, len(queries), spec.Plain, r.projectName()))
	}
	if sum.Empty > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d of %d queries got an empty ranking (listed in the log)", sum.Empty, len(queries)))
	}
	if !req.NoStore {
		if _, err := SaveRun(ctx, r.Store, r.ProjectID, name, req.Method, full, queries, results); err != nil {
			return RunSummary{}, nil, nil, err
		}
		sum.Stored = true
	}
	return sum, queries, results, nil
}

// DefaultRunName is the method name followed by its non-default parameters
// in name order, e.g. "pnorm.p=inf".
func DefaultRunName(method string, params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	name := method
	for _, k := range keys {
		v := strings.NewReplacer(",", "+", " ", "").Replace(params[k])
		name += "." + k + "=" + v
	}
	return name
}

// countingMethod reports each finished query of a run.
type countingMethod struct {
	Method
	done   atomic.Int64
	total  int
	report func(done, total int)
}

func (c *countingMethod) Retrieve(ctx context.Context, q Query, k int) ([]Result, error) {
	rs, err := c.Method.Retrieve(ctx, q, k)
	if err == nil {
		c.report(int(c.done.Add(1)), c.total)
	}
	return rs, err
}
