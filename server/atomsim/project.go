package atomsim

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// SimulateProject runs SimulateAtoms over a project's queries (of split, ""
// = all) with stored runs as candidates and oracle as the atom judge.
// Atoms are matched to the oracle by atoms.Normalise of their text (nothing is
// written). Gold is the project's positive qrels (relevance >= 1) where a
// query has any, else the oracle's set algebra.
func SimulateProject(ctx context.Context, st *store.Store, projectID int64, runNames []string, depth int, split string, oracle atoms.Oracle, budget int) (SimResult, error) {
	in, err := projectInput(ctx, st, projectID, split, oracle)
	if err != nil {
		return SimResult{}, err
	}
	runs, err := pooling.LoadRuns(ctx, st, projectID, runNames)
	if err != nil {
		return SimResult{}, err
	}
	in.Runs, in.Depth, in.Budget = runs, depth, budget
	return SimulateAtoms(in)
}

// CALProjectResult holds the whole-corpus simulations of a project.
type CALProjectResult struct {
	Queries    int
	Atoms      *SimResult        // StrategyAtoms, when asked
	QueryLevel *QueryLevelResult // StrategyCALFull, when asked
	Bound      *Hindsight        // StrategyCALBound, when asked
}

// SimulateProjectCAL runs the whole-corpus simulations named in
// strategies (StrategyAtoms, StrategyCALFull, StrategyCALBound) over a project's queries
// as SimulateProject reads them, with an active learner over the project's
// lexical index (opt.Engine is set from it when nil).
func SimulateProjectCAL(ctx context.Context, st *store.Store, projectID int64, split string, oracle atoms.Oracle, strategies []string, opt CALSimOptions, log *slog.Logger) (CALProjectResult, error) {
	var out CALProjectResult
	in, err := projectInput(ctx, st, projectID, split, oracle)
	if err != nil {
		return out, err
	}
	out.Queries = len(in.Queries)
	if opt.Engine == nil {
		ix, err := retrieval.LoadLexical(ctx, st, projectID, log)
		if err != nil {
			return out, err
		}
		opt.Engine = cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions())
	}
	for _, s := range strategies {
		switch s {
		case StrategyAtoms:
			r, err := SimulateAtomsCAL(ctx, in, opt)
			if err != nil {
				return out, err
			}
			out.Atoms = &r
		case StrategyCALFull:
			r, err := SimulateQueryLevelCAL(ctx, in, opt)
			if err != nil {
				return out, err
			}
			out.QueryLevel = &r
		case StrategyCALBound:
			capPerQuery := opt.BoundCap
			if capPerQuery <= 0 {
				capPerQuery = 20000
			}
			h, err := QueryLevelHindsight(ctx, in, opt.Engine, capPerQuery, runtime.GOMAXPROCS(0))
			if err != nil {
				return out, err
			}
			out.Bound = h
		default:
			return out, fmt.Errorf("atoms: unknown whole-corpus strategy %q (want %s, %s or %s)", s, StrategyAtoms, StrategyCALFull, StrategyCALBound)
		}
	}
	return out, nil
}

// projectInput reads a project's queries with an expression and atoms (of
// split, "" = all), their texts and atom texts, and their gold: the
// project's positive qrels (relevance >= 1) where a query has any, else
// the oracle's set algebra.
func projectInput(ctx context.Context, st *store.Store, projectID int64, split string, oracle atoms.Oracle) (SimInput, error) {
	qs, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return SimInput{}, err
	}
	in := SimInput{Oracle: oracle, AtomTexts: map[string]string{}, QueryTexts: map[string]string{}}
	for _, q := range qs {
		if len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
			continue
		}
		var e boolexpr.Expr
		if err := json.Unmarshal(q.Expression, &e); err != nil {
			return SimInput{}, fmt.Errorf("atoms: query %q expression: %w", q.ExtID, err)
		}
		keys := make([]string, len(q.Atoms))
		for i, a := range q.Atoms {
			keys[i] = atoms.Normalise(a.Text)
			in.AtomTexts[keys[i]] = a.Text
		}
		in.QueryTexts[q.ExtID] = q.Text
		in.Queries = append(in.Queries, atoms.Query{ID: q.ExtID, Expr: &e, Atoms: keys})
	}
	if len(in.Queries) == 0 {
		return SimInput{}, fmt.Errorf("atoms: no query with an expression and atoms in the project (split %q)", split)
	}
	gold, err := GoldFromOracle(in.Queries, oracle)
	if err != nil {
		return SimInput{}, err
	}
	stored := map[string]bool{} // queries whose gold comes from the qrels
	err = st.EachQrel(ctx, projectID, "positive", "", func(r store.Qrel) error {
		if _, ok := gold[r.QueryExtID]; !ok || r.Relevance < 1 {
			return nil
		}
		if !stored[r.QueryExtID] {
			stored[r.QueryExtID] = true
			gold[r.QueryExtID] = map[string]bool{}
		}
		gold[r.QueryExtID][r.DocExtID] = true
		return nil
	})
	if err != nil {
		return SimInput{}, err
	}
	in.Gold = gold
	return in, nil
}
