package vocab

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Pooling strategies: the judging orders of a pool and the simulations'
// strategies. Which strategy serves which purpose is the registry below.
const (
	StrategyDocID      = "docid"       // depth-k pool judged in document-id order (classic TREC)
	StrategyDepth      = "depth"       // depth-k pool judged in rank order (min rank over runs)
	StrategyMTF        = "mtf"         // Move-to-Front
	StrategyBandit     = "bandit"      // multi-armed bandit (MaxMean; non-stationary with a discount)
	StrategyCAL        = "cal"         // continuous active learning: a pool that grows as judgments arrive
	StrategyAtoms      = "atoms"       // constraint pooling: constraint items in batches (live), one learner per atom (simulated)
	StrategySample     = "sample"      // a stratified sample with inclusion probabilities (issue 24)
	StrategyAtomsPools = "atoms-pools" // constraint pooling over the runs' pools (simulated)
	StrategyCALFull    = "cal-full"    // one active learner per query over the whole corpus (simulated)
	StrategyCALBound   = "cal-bound"   // the query-level hindsight bound (knows the gold; a table row, not a strategy)
	StrategyFeedback   = "feedback"    // query-level relevance feedback (simulated)
)

// Use is what a strategy serves; a strategy may serve several.
type Use uint8

// The uses of a strategy.
const (
	Publish  Use = 1 << iota // a pool a researcher may build and publish (pool builder, `boolpool pool`)
	Order                    // a judging order of a depth-k pool (pooling.Simulate)
	Gold                     // simulated against all gold (pooling.SimulateGold, `pool simulate`)
	Estimate                 // simulated with estimated measures (evalsim, `pool simulate --estimate`)
	AtomSim                  // the constraint-pooling simulations (`pool simulate --strategies atoms,…`)
)

// registry is every strategy with its uses, in report order.
var registry = []struct {
	name string
	uses Use
}{
	{StrategyDocID, Order | Gold | Estimate},
	{StrategyDepth, Publish | Order | Gold | Estimate},
	{StrategyMTF, Publish | Order | Gold | Estimate},
	{StrategyBandit, Publish | Order | Gold | Estimate},
	{StrategyCAL, Publish | Gold | Estimate},
	{StrategyAtoms, Publish | AtomSim},
	{StrategySample, Publish | Estimate},
	{StrategyAtomsPools, AtomSim},
	{StrategyCALFull, AtomSim},
	{StrategyCALBound, AtomSim},
	{StrategyFeedback, 0},
}

// CheckStrategies reports the first of names that does not serve use
// ("unknown strategy …", naming those that do), or that there is none.
func CheckStrategies(use Use, names []string) error {
	if len(names) == 0 {
		return errors.New("no strategy given")
	}
	known := Strategies(use)
	for _, n := range names {
		if !slices.Contains(known, n) {
			return fmt.Errorf("unknown strategy %q (want one of %s)", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// Strategies lists the strategies that serve use, in report order.
func Strategies(use Use) []string {
	var names []string
	for _, s := range registry {
		if s.uses&use != 0 {
			names = append(names, s.name)
		}
	}
	return names
}
