// Package valproject loads the DebQUEST val project the cal and atoms
// suites of `boolpool-lab bench` simulate on: the corpus and the val queries,
// the lexical index, and the six lexical runs whose depth-100 pools are
// the query-level strategies' candidates.
package valproject

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"

	"boolpool/server/ingest"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// RunMethods are the runs saved for the pools, all lexical (no encoder).
var RunMethods = []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"}

// PoolDepth is the runs' depth.
const PoolDepth = 100

// Project is the loaded project.
type Project struct {
	Store   store.Project
	Index   *lexical.Index
	Queries []retrieval.Query
}

// Load imports dir's documents.jsonl.gz and val.jsonl into the project
// name (created if missing), builds its lexical index and saves the
// RunMethods runs to PoolDepth.
func Load(ctx context.Context, st *store.Store, dir, name string, log *slog.Logger) (Project, error) {
	var out Project
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		return out, err
	}
	out.Store = p
	if _, err := ingest.Files(ctx, st, p.ID, "quest", []string{filepath.Join(dir, "documents.jsonl.gz"), filepath.Join(dir, "val.jsonl")}, ingest.Options{}); err != nil {
		return out, err
	}
	if out.Index, err = retrieval.BuildLexical(ctx, st, p.ID, lexical.DefaultParams(), log); err != nil {
		return out, err
	}
	if out.Queries, err = retrieval.LoadQueries(ctx, st, p.ID, "val"); err != nil {
		return out, err
	}
	for _, name := range RunMethods {
		m, err := retrieval.New(name, nil, retrieval.Deps{Lexical: out.Index})
		if err != nil {
			return out, err
		}
		res, err := retrieval.RunAll(ctx, m, out.Queries, PoolDepth, runtime.GOMAXPROCS(0), nil)
		if err != nil {
			return out, err
		}
		if _, err := retrieval.SaveRun(ctx, st, p.ID, name, name, nil, out.Queries, res); err != nil {
			return out, err
		}
	}
	return out, nil
}
