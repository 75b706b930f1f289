package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/vocab"
)

// The sweep's SQL (issue 29): the work a judgment's in-memory follow-up
// (the consensus refresh, the cal and atoms triggers) would have done,
// derived from the database, so that a process killed between committing a
// judgment and that follow-up leaves nothing undone for good. server/app
// runs the sweep when a server or worker starts and periodically.

// lockSweep is the advisory lock (one-key form) one sweep at a time holds
// across every process on the database.
const lockSweep = 0x62700003

// WithSweepLock runs fn while holding the sweep's advisory lock, and
// records when it ran (table sweep_state). With wait it waits for the lock;
// otherwise it returns ran = false at once when another process (or
// goroutine) holds it, or when a sweep ran within skipWithin (0: never
// skip for that): with several processes on the database, one sweeps per
// period. The lock belongs to a transaction left open while fn runs (fn
// uses the pool as it likes), so it ends with the transaction, or with the
// session of a process that dies.
func (s *Store) WithSweepLock(ctx context.Context, wait bool, skipWithin time.Duration, fn func(ctx context.Context) error) (ran bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		if wait {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockSweep)); err != nil {
				return fmt.Errorf("store: sweep lock: %w", err)
			}
		} else {
			var got bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(lockSweep)).Scan(&got); err != nil {
				return fmt.Errorf("store: sweep lock: %w", err)
			}
			if !got {
				return nil
			}
		}
		if skipWithin > 0 {
			var recent bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sweep_state
					WHERE swept_at > now() - make_interval(secs => $1))`, skipWithin.Seconds()).Scan(&recent); err != nil {
				return fmt.Errorf("store: last sweep: %w", err)
			}
			if recent {
				return nil
			}
		}
		ran = true
		if err := fn(ctx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sweep_state (id, swept_at) VALUES (1, now())
				ON CONFLICT (id) DO UPDATE SET swept_at = now()`); err != nil {
			return fmt.Errorf("store: record the sweep: %w", err)
		}
		return nil
	})
	return ran, err
}

// skippedJob is true of a jobs row j that ran and did nothing because it
// came too early (its result says why it skipped: pooling.GrowResult,
// atompool.GrowResult): it does not count as the batch's job.
const skippedJob = `(j.state = 'done' AND coalesce(j.result ? 'skipped', false))`

// CALDue returns the active queries of published cal pools, in every
// project, whose last batch is fully judged and for which no cal-batch job
// of the next round was ever queued (in any state: one that ran grew or
// stopped the query, one that failed or was cancelled is left to the
// researcher; but one that ran too early and skipped does not count): the
// batches a lost cal trigger did not queue.
func (s *Store) CALDue(ctx context.Context) ([]CALQuery, error) {
	qs, err := s.calQueries(ctx, `WHERE cq.state = 'active' AND p.status = 'published'
		AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.project_id = p.project_id AND j.kind = '`+vocab.JobKindCALBatch+`'
			AND j.params = jsonb_build_object('pool_id', cq.pool_id, 'query_id', cq.query_id, 'round', cq.round + 1)
			AND NOT `+skippedJob+`)
		ORDER BY cq.pool_id, cq.query_id`)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(qs, func(q CALQuery) bool { return q.Pending != 0 }), nil
}

// CALJudgedWithin reports whether a judgment of an item of q's last batch
// was stored within the last d (its follow-up may still be on its way: the
// periodic sweep leaves such a batch to its trigger for now).
func (s *Store) CALJudgedWithin(ctx context.Context, q CALQuery, d time.Duration) (bool, error) {
	var recent bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pool_items pi
			JOIN documents d ON d.project_id = $1 AND d.ext_id = pi.doc_ext_id
			JOIN items i ON i.project_id = $1 AND i.kind = 'relevance' AND i.query_id = pi.query_id AND i.document_id = d.id
			JOIN judgments j ON j.item_id = i.id
			WHERE pi.pool_id = $2 AND pi.query_id = $3 AND pi.round = $4
			  AND j.created_at > now() - make_interval(secs => $5))`,
		q.ProjectID, q.PoolID, q.QueryID, q.Round, d.Seconds()).Scan(&recent)
	if err != nil {
		return false, fmt.Errorf("store: recent judgments of query %d of cal pool %d: %w", q.QueryID, q.PoolID, err)
	}
	return recent, nil
}

// AtomPoolDue is a live atoms pool whose current batch is labelled.
type AtomPoolDue struct {
	ProjectID int64
	PoolID    int64
	Items     int // its constraint items (the atoms-batch job's parameter)
}

// AtomPoolsDue returns the published atoms pools, in every project, whose
// constraint items all have a label and for which no atoms-batch job of
// their item count was ever queued (in any state: one that ran grew or
// ended the pool; but one that ran too early and skipped does not count):
// the batches a lost atoms trigger did not queue.
func (s *Store) AtomPoolsDue(ctx context.Context) ([]AtomPoolDue, error) {
	// The job test first: a pool whose batch was queued is not due, and
	// only the others' items are checked for a missing label.
	rows, _ := s.pool.Query(ctx, `WITH c AS (
			SELECT p.project_id, p.id, (SELECT count(*) FROM items i WHERE i.pool_id = p.id AND i.kind = 'constraint')::int AS items
			FROM pools p WHERE p.strategy = 'atoms' AND p.status = 'published')
		SELECT c.project_id, c.id AS pool_id, c.items FROM c
		WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.project_id = c.project_id AND j.kind = '`+vocab.JobKindAtomsBatch+`'
				AND j.params = jsonb_build_object('pool_id', c.id, 'items', c.items)
				AND NOT `+skippedJob+`)
		  AND NOT EXISTS (SELECT 1 FROM items i JOIN documents d ON d.id = i.document_id
				WHERE i.pool_id = c.id AND i.kind = 'constraint' AND NOT i.is_gold
				  AND NOT EXISTS (SELECT 1 FROM atom_labels l WHERE l.atom_id = i.atom_id AND l.doc_ext_id = d.ext_id))
		ORDER BY c.id`)
	return collectAll[AtomPoolDue](rows, "atoms pools due")
}

// ItemRef names an item and its project.
type ItemRef struct {
	ProjectID int64
	ItemID    int64
}

// UnlabelledJudgedConstraints returns the constraint items of published
// atoms pools, in every project, that have a current answer (not a skip)
// but no atom label: their label's write was lost, and their pool waits
// for it.
func (s *Store) UnlabelledJudgedConstraints(ctx context.Context) ([]ItemRef, error) {
	rows, _ := s.pool.Query(ctx, `SELECT i.project_id, i.id AS item_id FROM items i
		JOIN pools p ON p.id = i.pool_id AND p.strategy = 'atoms' AND p.status = 'published'
		JOIN documents d ON d.id = i.document_id
		WHERE i.kind = 'constraint' AND NOT i.is_gold AND i.atom_id IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM atom_labels l WHERE l.atom_id = i.atom_id AND l.doc_ext_id = d.ext_id)
		  AND EXISTS (SELECT 1 FROM current_judgments c WHERE c.item_id = i.id AND c.skip_reason = ''
			AND coalesce(c.payload->>'satisfied', '') <> '')
		ORDER BY i.id`)
	return collectAll[ItemRef](rows, "unlabelled constraint items")
}

// ProjectsWithJudgments returns the ids of the projects that have at least
// one judgment or adjudication (those whose consensus may need repair).
func (s *Store) ProjectsWithJudgments(ctx context.Context) ([]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id FROM projects p
		WHERE EXISTS (SELECT 1 FROM items i JOIN judgments j ON j.item_id = i.id WHERE i.project_id = p.id)
		   OR EXISTS (SELECT 1 FROM items i JOIN adjudications a ON a.item_id = i.id WHERE i.project_id = p.id)
		ORDER BY p.id`)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("store: projects with judgments: %w", err)
	}
	return ids, nil
}
