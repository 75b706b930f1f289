package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"boolpool/server/atompool"
	"boolpool/server/atoms"
)

// runPoolSimulateAtoms is `pool simulate --strategies atoms --atom-qrels
// FILE`: constraint pooling (issue 13) over the project's stored runs, with
// FILE (atom text<TAB>document<TAB>0|1, gzip allowed) as the atom oracle.
// It prints the judgments needed for each level (--levels) of all
// query-level gold; --budget caps the atom judgments.
func runPoolSimulateAtoms(ctx context.Context, db, project string, runs []string, depth int, split, atomQrels string, budget int, levels []float64, asJSON bool, stdout, stderr io.Writer) error {
	if atomQrels == "" {
		return fmt.Errorf("%w: --strategies atoms needs --atom-qrels FILE", errUsage)
	}
	f, err := os.Open(atomQrels)
	if err != nil {
		return fmt.Errorf("--atom-qrels: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(atomQrels, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("--atom-qrels %s: %w", atomQrels, err)
		}
		defer zr.Close()
		r = zr
	}
	oracle, err := atoms.ReadOracle(r)
	if err != nil {
		return fmt.Errorf("--atom-qrels %s: %w", atomQrels, err)
	}
	st, p, err := openProject(ctx, db, project)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	res, err := atompool.SimulateProject(ctx, st, p.ID, runs, depth, split, oracle, budget)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "simulated in %s\n", time.Since(start).Round(time.Millisecond))
	to := map[string]any{}
	for _, l := range levels {
		k := fmt.Sprintf("%g", l)
		if n, ok := res.JudgmentsTo(l); ok {
			to[k] = n
		} else {
			to[k] = nil
		}
	}
	found := 0
	if len(res.Steps) > 0 {
		found = res.Steps[len(res.Steps)-1].Found
	}
	if asJSON {
		return jsonOut(stdout, map[string]any{"queries": res.Queries, "gold": res.Gold, "strategies": map[string]any{
			atompool.StrategyAtoms: map[string]any{"judgments": len(res.Steps), "found": found, "recall": res.Recall(), "judgments_to": to}}})
	}
	fmt.Fprintf(stdout, "atoms: %d queries, %d gold pairs; %d atom judgments, %d found (recall %.3f)\n", res.Queries, res.Gold, len(res.Steps), found, res.Recall())
	for _, l := range levels {
		if n, ok := res.JudgmentsTo(l); ok {
			fmt.Fprintf(stdout, "  to %.0f%%: %d judgments\n", 100*l, n)
		} else {
			fmt.Fprintf(stdout, "  to %.0f%%: not reached\n", 100*l)
		}
	}
	return nil
}
