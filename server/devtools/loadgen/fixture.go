// Package loadgen drives the real boolpool server the way a crowd does:
// many annotators fetching tasks and submitting judgments concurrently,
// with retries through failures. It provides the load and crash tests and
// the load benchmark (server killed with SIGKILL and restarted, Postgres
// restarted, every acknowledged judgment checked afterwards).
package loadgen

import (
	"context"
	"fmt"
	"strings"

	"boolpool/server/auth"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Creds is one annotator login.
type Creds struct {
	Username, Password string
}

// cheapHash keeps creating hundreds of load-test accounts fast; real
// accounts use auth.DefaultHashParams.
var cheapHash = auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// Fixture creates project name with docs documents, one query, a relevance
// item per document, and annotators load-1..load-n, all members. Each
// item takes raters judgments, so the project holds docs*raters tasks.
func Fixture(ctx context.Context, st *store.Store, name string, docs, annotators, raters int) ([]Creds, error) {
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		return nil, err
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE projects SET raters_per_item = $2, gold_rate = 0, lease_seconds = 60 WHERE id = $1`, p.ID, raters); err != nil {
		return nil, fmt.Errorf("loadgen: %w", err)
	}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for i := 0; i < docs; i++ {
			body := fmt.Sprintf("Package %d is a tool. It does useful things for load tests.", i)
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("doc%d", i), Title: fmt.Sprintf("doc%d", i), Body: body,
				SentenceStarts: []int32{0, int32(strings.Index(body, "It"))}}); err != nil {
				return err
			}
		}
		_, err := im.Query(ctx, store.QueryIn{ExtID: "q1", Text: "tools that are not games", OriginalQuery: "<mark>tools</mark> that are not <mark>games</mark>",
			Template: "_ that are not _", Atoms: []store.Atom{{Text: "tools", Start: 0, End: 5}, {Text: "games", Start: 19, End: 24}},
			Expression: []byte(`{"op":"AND","args":[{"op":"ATOM","atom":0},{"op":"NOT","args":[{"op":"ATOM","atom":1}]}]}`)})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("loadgen: fixture: %w", err)
	}
	if _, err := st.Pool().Exec(ctx, `INSERT INTO items (project_id, kind, query_id, document_id, priority)
		SELECT d.project_id, 'relevance', q.id, d.id, d.id FROM documents d JOIN queries q ON q.project_id = d.project_id
		WHERE d.project_id = $1 ON CONFLICT DO NOTHING`, p.ID); err != nil {
		return nil, fmt.Errorf("loadgen: items: %w", err)
	}
	// Fresh bulk-loaded tables have no planner statistics yet; autovacuum
	// would gather them within a minute, the load test should not measure
	// that minute.
	if _, err := st.Pool().Exec(ctx, `ANALYZE items; ANALYZE assignments; ANALYZE documents`); err != nil {
		return nil, fmt.Errorf("loadgen: analyze: %w", err)
	}
	hash, err := auth.HashPassword("load-test-pw", cheapHash)
	if err != nil {
		return nil, err
	}
	var creds []Creds
	for i := 1; i <= annotators; i++ {
		u, err := st.CreateUser(ctx, store.NewUser{Username: fmt.Sprintf("%s-%d", name, i), Role: vocab.RoleAnnotator, PasswordHash: hash})
		if err != nil {
			return nil, fmt.Errorf("loadgen: user: %w", err)
		}
		if err := st.AddProjectMember(ctx, p.ID, u.ID); err != nil {
			return nil, err
		}
		creds = append(creds, Creds{Username: u.Username, Password: "load-test-pw"})
	}
	return creds, nil
}
