package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PoolInfo is one row of the pools table with its item count.
type PoolInfo struct {
	ID        int64           `db:"id"`
	Name      string          `db:"name"`
	Strategy  string          `db:"strategy"`
	Depth     int             `db:"depth"`
	Params    json.RawMessage `db:"params"`
	Status    string          `db:"status"`
	CreatedAt time.Time       `db:"created_at"`
	Items     int             `db:"items"`
}

// PoolItemIn is one pool item to save.
type PoolItemIn struct {
	QueryID  int64
	DocExtID string
	Priority int
	Sources  map[string]int
	Probe    string
	Origin   string // "runs" (default), "cal" or "sample"
	Round    int    // the cal batch that served it (0: the first)
	// Inclusion is a sampled pool's inclusion probability of the item, in
	// (0, 1], and Stratum its stratum (PoolStratumIn.Stratum); 0: the pool
	// has no sampling design (both stored as NULL).
	Inclusion float64
	Stratum   int
}

// SavePool creates the pool called name, or replaces a draft one with the
// same name, with its items, in one transaction. A published pool is never
// replaced (ErrConflict): judging may have started on it.
func (s *Store) SavePool(ctx context.Context, projectID int64, name, strategy string, depth int, params json.RawMessage, items []PoolItemIn) (int64, error) {
	var id int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		id, err = savePool(ctx, tx, projectID, name, strategy, depth, params, items)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: save pool %q: %w", name, err)
	}
	return id, nil
}

// savePool is SavePool in the caller's transaction.
func savePool(ctx context.Context, tx pgx.Tx, projectID int64, name, strategy string, depth int, params json.RawMessage, items []PoolItemIn) (int64, error) {
	params = objectOrEmpty(params)
	var id int64
	var status string
	err := tx.QueryRow(ctx, `SELECT id, status FROM pools WHERE project_id = $1 AND name = $2 FOR UPDATE`, projectID, name).Scan(&id, &status)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = tx.QueryRow(ctx, `INSERT INTO pools (project_id, name, strategy, depth, params) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			projectID, name, strategy, depth, params).Scan(&id)
		if err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	case status != "draft":
		return 0, fmt.Errorf("pool %q is %s: %w", name, status, ErrConflict)
	default:
		if _, err := tx.Exec(ctx, `UPDATE pools SET strategy = $2, depth = $3, params = $4, created_at = now() WHERE id = $1`,
			id, strategy, depth, params); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pool_items WHERE pool_id = $1`, id); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pool_strata WHERE pool_id = $1`, id); err != nil {
			return 0, err
		}
	}
	rows := make([][]any, len(items))
	for i, it := range items {
		src := it.Sources
		if src == nil {
			src = map[string]int{}
		}
		origin := it.Origin
		if origin == "" {
			origin = "runs"
		}
		var inclusion *float64
		var stratum *int16
		if it.Inclusion > 0 {
			pi, h := it.Inclusion, int16(it.Stratum)
			inclusion, stratum = &pi, &h
		}
		rows[i] = []any{id, it.QueryID, it.DocExtID, it.Priority, src, it.Probe, origin, it.Round, inclusion, stratum}
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"pool_items"},
		[]string{"pool_id", "query_id", "doc_ext_id", "priority", "sources", "probe", "origin", "round", "inclusion", "stratum"}, pgx.CopyFromRows(rows))
	return id, err
}

// ListPools returns a project's pools by name.
func (s *Store) ListPools(ctx context.Context, projectID int64) ([]PoolInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.name, p.strategy, p.depth, p.params, p.status, p.created_at,
			(SELECT count(*) FROM pool_items i WHERE i.pool_id = p.id)::int AS items
		FROM pools p WHERE p.project_id = $1 ORDER BY p.name`, projectID)
	return collectAll[PoolInfo](rows, "list pools")
}

// PoolItem is one stored pool item.
type PoolItem struct {
	QueryExtID string
	DocExtID   string
	Priority   int
	Sources    map[string]int
	Probe      string
	Origin     string // "runs", "cal" or "sample"
	Round      int
	Inclusion  float64 // a sampled pool's inclusion probability (0: no design)
	Stratum    int     // its stratum (with Inclusion)
}

// PoolItems returns a pool's items in query import order, then priority.
func (s *Store) PoolItems(ctx context.Context, poolID int64) ([]PoolItem, error) {
	rows, _ := s.pool.Query(ctx, `SELECT q.ext_id AS query_ext_id, i.doc_ext_id, i.priority, i.sources, i.probe, i.origin, i.round,
			coalesce(i.inclusion, 0) AS inclusion, coalesce(i.stratum, 0)::int AS stratum
		FROM pool_items i JOIN queries q ON q.id = i.query_id
		WHERE i.pool_id = $1 ORDER BY q.seq, q.id, i.priority, i.doc_ext_id`, poolID)
	return collectAll[PoolItem](rows, "pool items")
}

// NewPool is a built pool to save as one unit: its items, the state of a
// cal pool's queries and, with Publish, the project's raters per item and
// the pool's relevance items.
type NewPool struct {
	ProjectID  int64
	Name       string
	Strategy   string
	Depth      int
	Params     json.RawMessage // the pool's spec, as JSON
	Items      []PoolItemIn
	CALQueries []CALQueryIn // strategy cal: its queries' state (none: any earlier state of a draft is removed)
	// Strata is a sampled pool's design: the strata of each query (its
	// items carry their inclusion probability and stratum).
	Strata  []PoolStratumIn
	Publish bool
	// RatersPerItem, with Publish, becomes the project's raters per item
	// (0: unchanged).
	RatersPerItem int
	By            int64 // who publishes (the audit log; 0: nobody signed in)
	// JobID is the background job that builds the pool (0: none). It is
	// recorded in the pool's params as job_id, so that a retry of the job
	// finds the pool its earlier attempt published.
	JobID int64
}

// SavedPool says what SaveNewPool did.
type SavedPool struct {
	ID        int64
	Published bool
	// Publish counts the relevance items publishing created (with
	// Published).
	Publish       PublishResult
	RatersPerItem int // the project's raters per item after publishing
	// Again: an earlier attempt of the same job (NewPool.JobID) had already
	// published the pool; nothing was written, and Publish counts the items
	// that attempt created.
	Again bool
}

// SaveNewPool saves a pool in one transaction: it creates the pool called
// n.Name or replaces a draft of that name (a published pool is never
// replaced: ErrConflict), stores its items and cal state, and with Publish
// sets the raters per item and publishes the pool (as PublishPool). Either
// all of it is written or nothing, so a failed attempt can simply be run
// again; a pool that n.JobID already published is reported, not published
// twice.
func (s *Store) SaveNewPool(ctx context.Context, n NewPool) (SavedPool, error) {
	var out SavedPool
	params, err := withJobID(n.Params, n.JobID)
	if err != nil {
		return out, fmt.Errorf("store: save pool %q: %w", n.Name, err)
	}
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		out = SavedPool{}
		// Lock the project row first (as SetRatersPerItem does): two saves
		// of one project queue up, and the check below sees the other's
		// pool. NO KEY: rows that refer to the project (judgments, jobs)
		// can still be written meanwhile.
		var goldRate float64
		err := tx.QueryRow(ctx, `SELECT gold_rate::float8, raters_per_item FROM projects WHERE id = $1 FOR NO KEY UPDATE`, n.ProjectID).
			Scan(&goldRate, &out.RatersPerItem)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("project %d: %w", n.ProjectID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if n.JobID != 0 {
			done, err := publishedByJob(ctx, tx, n.ProjectID, n.Name, n.JobID)
			if err != nil {
				return err
			}
			if done != nil {
				out = *done
				return nil
			}
		}
		if out.ID, err = savePool(ctx, tx, n.ProjectID, n.Name, n.Strategy, n.Depth, params, n.Items); err != nil {
			return err
		}
		if err := saveCALQueries(ctx, tx, out.ID, n.CALQueries); err != nil {
			return err
		}
		if err := saveStrata(ctx, tx, out.ID, n.Strata); err != nil {
			return err
		}
		if !n.Publish {
			return nil
		}
		if n.RatersPerItem != 0 {
			if err := setRatersPerItem(ctx, tx, n.ProjectID, n.By, n.RatersPerItem); err != nil {
				return err
			}
			out.RatersPerItem = n.RatersPerItem
		}
		out.Published = true
		out.Publish, err = publishPool(ctx, tx, out.ID, n.By, goldRate)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store: save pool %q: %w", n.Name, err)
	}
	if out.Published && !out.Again {
		return out, s.analyzeAfterPublish(ctx, out.Publish)
	}
	return out, nil
}

// publishedByJob reports the project's pool called name when job published
// it (nil when there is none, it is a draft, or another job or command
// made it).
func publishedByJob(ctx context.Context, tx pgx.Tx, projectID int64, name string, job int64) (*SavedPool, error) {
	var id int64
	var status string
	var by *int64
	err := tx.QueryRow(ctx, `SELECT id, status, (params->>'job_id')::bigint FROM pools WHERE project_id = $1 AND name = $2`,
		projectID, name).Scan(&id, &status, &by)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (status != "published" || by == nil || *by != job)) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := SavedPool{ID: id, Published: true, Again: true}
	err = tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM items WHERE pool_id = $1 AND kind = 'relevance'),
			(SELECT count(*) FROM items WHERE pool_id = $1 AND kind = 'relevance' AND is_gold),
			(SELECT count(*) FROM pool_items pi JOIN queries q ON q.id = pi.query_id
				WHERE pi.pool_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.project_id = q.project_id AND d.ext_id = pi.doc_ext_id)),
			(SELECT raters_per_item FROM projects WHERE id = $2)`, id, projectID).
		Scan(&out.Publish.Items, &out.Publish.Gold, &out.Publish.NoDocText, &out.RatersPerItem)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// withJobID adds "job_id" to a JSON object (unchanged when job is 0).
func withJobID(params json.RawMessage, job int64) (json.RawMessage, error) {
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	if job == 0 {
		return params, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m["job_id"] = json.RawMessage(fmt.Sprint(job))
	return json.Marshal(m)
}

// PoolByName returns a project's pool called name (ErrNotFound when there
// is none).
func (s *Store) PoolByName(ctx context.Context, projectID int64, name string) (PoolInfo, error) {
	if !storable(name) {
		return PoolInfo{}, fmt.Errorf("store: pool %q: %w", name, ErrNotFound)
	}
	return s.onePool(ctx, fmt.Sprintf("%q", name), `p.name = $2`, projectID, name)
}

// onePool reads the pool of a project matching where (on p, with the
// project as $1 and key as $2); label names it in errors.
func (s *Store) onePool(ctx context.Context, label, where string, projectID int64, key any) (PoolInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.name, p.strategy, p.depth, p.params, p.status, p.created_at,
			(SELECT count(*) FROM pool_items i WHERE i.pool_id = p.id)::int AS items
		FROM pools p WHERE p.project_id = $1 AND `+where, projectID, key)
	return collectOne[PoolInfo](rows, fmt.Sprintf("pool %s", label))
}
