package pooling

import (
	"context"
	"fmt"
	"log/slog"

	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// Preview computes what Create would build for spec (composition and
// Judged@k of each run) without saving anything, so a researcher can look
// at a pool before publishing it. Report.PoolID is 0.
func Preview(ctx context.Context, st *store.Store, projectID int64, spec Spec, log *slog.Logger) (Report, error) {
	if len(spec.Runs) == 0 {
		return Report{}, fmt.Errorf("pooling: no runs given")
	}
	runs, err := loadRuns(ctx, st, projectID, spec.Runs)
	if err != nil {
		return Report{}, err
	}
	queries, err := retrieval.LoadQueries(ctx, st, projectID, spec.Split)
	if err != nil {
		return Report{}, err
	}
	var ix *lexical.Index
	if spec.Probes {
		if ix, err = retrieval.LoadLexical(ctx, st, projectID, log); err != nil {
			return Report{}, err
		}
	}
	var all []Item
	inPool := map[string]map[string]bool{}
	for _, q := range queries {
		var probes []Probe
		if ix != nil {
			for _, p := range retrieval.LogicProbes(ix, q, spec.ProbeDepth) {
				probes = append(probes, Probe{Label: p.Label, Docs: p.Docs})
			}
		}
		items, err := Build(q.ID, runs, probes, Options{Depth: spec.Depth, Strategy: spec.Strategy}, NoJudgments)
		if err != nil {
			return Report{}, err
		}
		inPool[q.ID] = map[string]bool{}
		for _, it := range items {
			inPool[q.ID][it.DocID] = true
		}
		all = append(all, items...)
	}
	rep := Report{Name: spec.Name, Strategy: spec.Strategy, Depth: spec.Depth,
		Composition: Compose(all, spec.Runs), JudgedAtK: map[string]map[int]float64{}}
	judged := func(q, d string) bool { return inPool[q][d] }
	for _, r := range runs {
		rep.JudgedAtK[r.Name] = map[int]float64{}
		for _, k := range spec.JudgedK {
			rep.JudgedAtK[r.Name][k] = JudgedAtK(restrict(r, inPool), judged, k)
		}
	}
	return rep, nil
}
