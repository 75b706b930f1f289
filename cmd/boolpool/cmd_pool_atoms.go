package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"boolpool/server/atoms"
	"boolpool/server/atomsim"
	"boolpool/server/vocab"
)

// atomStrategies are the strategies of runPoolSimulateAtoms: constraint
// pooling over the runs' pools, and the whole-corpus simulations (issue 13).
var atomStrategies = vocab.Strategies(vocab.AtomSim)

// isAtomStrategies says whether names are all atomStrategies.
func isAtomStrategies(names []string) bool {
	for _, n := range names {
		if !slices.Contains(atomStrategies, n) {
			return false
		}
	}
	return len(names) > 0
}

// atomSim is one strategy's outcome in runPoolSimulateAtoms.
type atomSim struct {
	name      string
	judgments int
	found     int
	recall    float64
	to        func(float64) (int, bool)
}

// runPoolSimulateAtoms is `pool simulate --strategies atoms,atoms-pools,
// cal-full,cal-bound --atom-qrels FILE` (issue 13) with FILE (atom
// text<TAB>document<TAB>0|1, gzip allowed) as the atom oracle: atoms-pools
// over the project's stored runs (--runs, --depth); atoms (an active
// learner per atom over the whole corpus) and cal-full (one per query)
// until the highest --levels share of all gold or --budget; cal-bound, the
// query-level reviews cut in hindsight (a bound, --cal-max judgments per
// query). It prints the judgments needed for each level of all
// query-level gold.
func runPoolSimulateAtoms(ctx context.Context, db, project string, names, runs []string, depth int, split, atomQrels string, budget, calMax int, levels []float64, asJSON bool, stdout, stderr io.Writer) error {
	if atomQrels == "" {
		return fmt.Errorf("%w: --strategies %s needs --atom-qrels FILE", errUsage, strings.Join(names, ","))
	}
	if slices.Contains(names, atomsim.StrategyAtomsPools) && len(runs) == 0 {
		return fmt.Errorf("%w: --strategies atoms-pools needs --runs", errUsage)
	}
	oracle, err := atoms.ReadOracleFile(atomQrels)
	if err != nil {
		return fmt.Errorf("--atom-qrels: %w", err)
	}
	st, p, err := openProject(ctx, db, project)
	if err != nil {
		return err
	}
	defer st.Close()
	stopAt := slices.Max(levels)
	var sims []atomSim
	queries, gold := 0, 0
	var whole []string
	for _, name := range names {
		start := time.Now()
		switch name {
		case atomsim.StrategyAtomsPools:
			res, err := atomsim.SimulateProject(ctx, st, p.ID, runs, depth, split, oracle, budget)
			if err != nil {
				return err
			}
			queries, gold = res.Queries, res.Gold
			sims = append(sims, stepSim(name, res))
		default:
			whole = append(whole, name)
			continue
		}
		fmt.Fprintf(stderr, "%s: simulated in %s\n", name, time.Since(start).Round(time.Millisecond))
	}
	if len(whole) > 0 {
		start := time.Now()
		res, err := atomsim.SimulateProjectCAL(ctx, st, p.ID, split, oracle, whole, atomsim.CALSimOptions{Budget: budget, StopAt: stopAt, BoundCap: calMax}, slog.New(slog.NewTextHandler(stderr, nil)))
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: simulated in %s\n", strings.Join(whole, ", "), time.Since(start).Round(time.Millisecond))
		queries = res.Queries
		for _, name := range whole {
			switch name {
			case atomsim.StrategyAtoms:
				gold = res.Atoms.Gold
				sims = append(sims, stepSim(name, *res.Atoms))
			case atomsim.StrategyCALFull:
				r := res.QueryLevel
				gold = r.Gold
				found := 0
				if len(r.Found) > 0 {
					found = r.Found[len(r.Found)-1]
				}
				sims = append(sims, atomSim{name, len(r.Found), found, float64(found) / float64(max(r.Gold, 1)), r.JudgmentsTo})
			case atomsim.StrategyCALBound:
				b := res.Bound
				gold = b.Gold
				n, _ := b.JudgmentsTo(float64(b.Found) / float64(max(b.Gold, 1)))
				sims = append(sims, atomSim{name, n, b.Found, float64(b.Found) / float64(max(b.Gold, 1)), b.JudgmentsTo})
			}
		}
	}
	if asJSON {
		out := map[string]any{}
		for _, s := range sims {
			to := map[string]any{}
			for _, l := range levels {
				if n, ok := s.to(l); ok {
					to[fmt.Sprintf("%g", l)] = n
				} else {
					to[fmt.Sprintf("%g", l)] = nil
				}
			}
			out[s.name] = map[string]any{"judgments": s.judgments, "found": s.found, "recall": s.recall, "judgments_to": to}
		}
		return jsonOut(stdout, map[string]any{"queries": queries, "gold": gold, "strategies": out})
	}
	fmt.Fprintf(stdout, "%d queries, %d gold pairs; an atom judgment counts one judgment; recall is of ALL gold\n", queries, gold)
	if slices.Contains(names, atomsim.StrategyCALBound) {
		fmt.Fprintf(stdout, "%s is a bound, not a strategy: each query's review cut at the best point chosen knowing the gold\n", atomsim.StrategyCALBound)
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "strategy\tjudgments\tfound\trecall")
	for _, l := range levels {
		fmt.Fprintf(tw, "\tto %.4g%%", 100*l)
	}
	fmt.Fprintln(tw)
	for _, s := range sims {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f", s.name, s.judgments, s.found, s.recall)
		for _, l := range levels {
			if n, ok := s.to(l); ok {
				fmt.Fprintf(tw, "\t%d", n)
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// stepSim summarises an atom-judging simulation.
func stepSim(name string, r atomsim.SimResult) atomSim {
	found := 0
	if len(r.Steps) > 0 {
		found = r.Steps[len(r.Steps)-1].Found
	}
	return atomSim{name, len(r.Steps), found, r.Recall(), r.JudgmentsTo}
}
