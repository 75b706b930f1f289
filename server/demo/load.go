package demo

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/ingest"
	"boolpool/server/lexical"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

//go:embed data/documents.jsonl.gz data/queries.jsonl
var dataFS embed.FS

// Project is the demo project's name.
const Project = "demo"

// Account is one demo login.
type Account struct {
	Username string
	Password string
	Role     string
}

// Accounts are the demo logins printed by 'make run'. They are for a local
// demo only: change or disable them on any shared deployment.
func Accounts() []Account {
	return []Account{
		{"admin", "admin-demo-pw", vocab.RoleAdmin},
		{"researcher", "researcher-demo-pw", vocab.RoleResearcher},
		{"annotator1", "annotator1-demo-pw", vocab.RoleAnnotator},
		{"annotator2", "annotator2-demo-pw", vocab.RoleAnnotator},
		{"annotator3", "annotator3-demo-pw", vocab.RoleAnnotator},
	}
}

// Summary says what Load found or did.
type Summary struct {
	Documents int64
	Queries   int64
	Imported  bool // false when the data was already there
	Items     int
	Users     []Account
}

// Load creates the demo project, imports the vendored data unless it is
// already complete, and creates the demo accounts that do not exist yet
// (existing accounts keep their passwords).
func Load(ctx context.Context, st *store.Store, log *slog.Logger) (Summary, error) {
	var sum Summary
	p, err := st.EnsureProject(ctx, Project)
	if err != nil {
		return sum, err
	}
	c, err := st.CountProject(ctx, p.ID)
	if err != nil {
		return sum, err
	}
	wantDocs, wantQueries, err := dataCounts()
	if err != nil {
		return sum, err
	}
	if c.Documents < wantDocs || c.Queries < wantQueries {
		dir, err := os.MkdirTemp("", "boolpool-demo-")
		if err != nil {
			return sum, fmt.Errorf("demo: %w", err)
		}
		defer os.RemoveAll(dir)
		var paths []string
		for _, name := range []string{"documents.jsonl.gz", "queries.jsonl"} {
			b, err := dataFS.ReadFile("data/" + name)
			if err != nil {
				return sum, fmt.Errorf("demo: %w", err)
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return sum, fmt.Errorf("demo: %w", err)
			}
			paths = append(paths, path)
		}
		if _, err := ingest.Files(ctx, st, p.ID, "quest", paths, ingest.Options{}); err != nil {
			return sum, fmt.Errorf("demo: import: %w", err)
		}
		sum.Imported = true
		if c, err = st.CountProject(ctx, p.ID); err != nil {
			return sum, err
		}
	}
	sum.Documents, sum.Queries = c.Documents, c.Queries
	items, err := ensureWork(ctx, st, p, log)
	if err != nil {
		return sum, err
	}
	sum.Items = items
	for _, a := range Accounts() {
		u, err := st.UserByUsername(ctx, a.Username)
		if errors.Is(err, apperr.ErrNotFound) {
			hash, herr := auth.HashPassword(a.Password, auth.DefaultHashParams)
			if herr != nil {
				return sum, herr
			}
			u, err = st.CreateUser(ctx, store.NewUser{Username: a.Username, DisplayName: a.Username, Role: a.Role, PasswordHash: hash})
		}
		if err != nil {
			return sum, fmt.Errorf("demo: user %s: %w", a.Username, err)
		}
		if err := st.AddProjectMember(ctx, p.ID, u.ID); err != nil {
			return sum, err
		}
		sum.Users = append(sum.Users, a)
	}
	return sum, nil
}

// dataCounts counts the vendored queries (lines) and documents.
func dataCounts() (docs, queries int64, err error) {
	q, err := fs.ReadFile(dataFS, "data/queries.jsonl")
	if err != nil {
		return 0, 0, fmt.Errorf("demo: %w", err)
	}
	for _, b := range q {
		if b == '\n' {
			queries++
		}
	}
	// The document count is pinned when the subset is built (see Build);
	// checking it without gunzipping keeps a second 'make run' fast.
	return demoDocuments, queries, nil
}

// demoDocuments is the number of documents in data/documents.jsonl.gz, as
// printed by Build; TestVendoredData checks that they agree.
const demoDocuments = 6970

// demoRuns are the retrieval runs pooled for the demo: lexical methods only,
// so a fresh machine needs no encoder for 'make run'.
var demoRuns = []string{"bm25", "bm25-strict-boolean", "pnorm"}

// ensureWork gives the annotators something to do on first start: it runs
// the lexical methods over the demo queries, pools their top 5 with the
// logic probes (depth-k, Move-to-Front order), publishes the pool as
// relevance items, and adds stage-1 paraphrase tasks. It does nothing when
// the project already has items.
func ensureWork(ctx context.Context, st *store.Store, p store.Project, log *slog.Logger) (int, error) {
	ic, err := st.CountItems(ctx, p.ID)
	if err != nil {
		return 0, err
	}
	if ic.Items > 0 {
		return ic.Items, nil
	}
	if _, err := retrieval.BuildLexical(ctx, st, p.ID, lexical.DefaultParams(), log); err != nil {
		return 0, fmt.Errorf("demo: index: %w", err)
	}
	ix, err := retrieval.LoadLexical(ctx, st, p.ID, log)
	if err != nil {
		return 0, fmt.Errorf("demo: index: %w", err)
	}
	queries, err := retrieval.LoadQueries(ctx, st, p.ID, "")
	if err != nil {
		return 0, err
	}
	for _, name := range demoRuns {
		m, err := retrieval.New(name, nil, retrieval.Deps{Lexical: ix})
		if err != nil {
			return 0, err
		}
		res, err := retrieval.RunAll(ctx, m, queries, 100, 2, nil)
		if err != nil {
			return 0, fmt.Errorf("demo: %s: %w", name, err)
		}
		full, _ := retrieval.ResolveParams(name, nil)
		if _, err := retrieval.SaveRun(ctx, st, p.ID, name, name, full, queries, res); err != nil {
			return 0, err
		}
	}
	// Built and published as the pool builder's pool job does.
	if _, err := pooling.Make(ctx, st, p.ID, pooling.MakeRequest{Spec: pooling.Spec{Name: "demo-pool", Runs: demoRuns, Depth: 5,
		Strategy: pooling.MTF, Probes: true, ProbeDepth: 2, JudgedK: []int{5}}, Publish: true}, log, nil); err != nil {
		return 0, fmt.Errorf("demo: pool: %w", err)
	}
	if _, err := st.CreateParaphraseTasks(ctx, p.ID, 20); err != nil {
		return 0, err
	}
	ic, err = st.CountItems(ctx, p.ID)
	return ic.Items, err
}
