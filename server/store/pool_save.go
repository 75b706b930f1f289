package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

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
	Publish    bool
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
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.name, p.strategy, p.depth, p.params, p.status, p.created_at,
			(SELECT count(*) FROM pool_items i WHERE i.pool_id = p.id)::int AS items
		FROM pools p WHERE p.project_id = $1 AND p.name = $2`, projectID, name)
	out, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[PoolInfo])
	if errors.Is(err, pgx.ErrNoRows) {
		return out, fmt.Errorf("store: pool %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return out, fmt.Errorf("store: pool %q: %w", name, err)
	}
	return out, nil
}
