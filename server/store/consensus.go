package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ConsensusRow is the stored consensus of one relevance item.
type ConsensusRow struct {
	ItemID            int64     `db:"item_id"`
	ProjectID         int64     `db:"project_id"`
	QueryID           int64     `db:"query_id"`
	Relevance         int16     `db:"relevance"`
	Status            string    `db:"status"`
	Votes             int       `db:"votes"`
	RelevantVotes     int       `db:"relevant_votes"`
	Contradictions    int       `db:"contradictions"`
	NeedsAdjudication bool      `db:"needs_adjudication"`
	AdjudicationID    *int64    `db:"adjudication_id"`
	UpdatedAt         time.Time `db:"updated_at"`
}

const consensusCols = `item_id, project_id, query_id, relevance, status, votes, relevant_votes, contradictions,
	needs_adjudication, adjudication_id, updated_at`

// Adjudication is a researcher's decision on an item.
type Adjudication struct {
	ID        int64     `db:"id"`
	ItemID    int64     `db:"item_id"`
	UserID    int64     `db:"user_id"`
	Relevance int16     `db:"relevance"`
	Note      string    `db:"note"`
	CreatedAt time.Time `db:"created_at"`
}

const adjudicationCols = `id, item_id, user_id, relevance, note, created_at`

// DecideFunc computes an item's consensus from its current judgments (each
// rater's latest, non-skipped relevance judgment, oldest first) and its
// latest adjudication (nil if none). ok = false means no consensus (the
// stored row, if any, is removed).
type DecideFunc func(current []Judgment, adj *Adjudication) (row ConsensusRow, ok bool)

// Advisory-lock namespaces of the consensus (two-key form): a refresh
// holds its project's key shared and its item's key exclusively; a sync
// holds the project's key exclusively. Item rows themselves are never
// locked: leasing picks items with FOR UPDATE SKIP LOCKED and must not
// skip an item because its consensus is being recomputed.
const (
	lockConsensusProject = 0x62700001
	lockConsensusItem    = 0x62700002
	// leaseCapLock (with the rater's id) serialises one rater's leases
	// under a cap across kinds (LeaseParams.TotalCap).
	leaseCapLock = 0x62700003
	// lockJobsProject (with the project's id) serialises the submissions
	// of one project's jobs (WaitingJobs).
	lockJobsProject = 0x62700004
)

// lockKey folds an id into an advisory lock's second key (a collision
// only serialises two unrelated refreshes).
const lockKey = `($2::bigint % 2147483647)::int`

// RefreshConsensus recomputes one item's consensus under an advisory lock
// on the item, so concurrent judgments of the same item cannot store a
// stale result, and writes it when it changed (audited as consensus.update
// with the old and new values). It returns the stored row (zero and ok =
// false when there is none) and whether anything changed.
//
// It runs for every judgment, so it costs two round trips inside its
// transaction: one pipelined batch takes the locks and reads, one writes.
// Statements of a batch run in order, each with a fresh snapshot, so the
// reads see everything committed before the item's lock was granted.
// Consensus is derived from the judgments and repaired by SyncConsensus
// (consensus.Current, which exports call), so the commit does not wait for the WAL flush; the
// judgment itself was committed durably.
func (s *Store) RefreshConsensus(ctx context.Context, itemID int64, decide DecideFunc) (row ConsensusRow, ok, changed bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var projectID, queryID int64
		var kind string
		b := &pgx.Batch{}
		b.Queue(`SELECT project_id, query_id, kind, set_config('synchronous_commit', 'off', true),
				pg_advisory_xact_lock_shared($2, (project_id % 2147483647)::int)::text,
				pg_advisory_xact_lock($3, ($1::bigint % 2147483647)::int)::text
			FROM items WHERE id = $1`, itemID, lockConsensusProject, lockConsensusItem)
		b.Queue(`SELECT `+judgmentCols+` FROM `+currentJudgmentsOfItem+` latest WHERE relevance IS NOT NULL ORDER BY id`, itemID)
		b.Queue(`SELECT `+adjudicationCols+` FROM adjudications WHERE item_id = $1 ORDER BY id DESC LIMIT 1`, itemID)
		b.Queue(`SELECT `+consensusCols+` FROM consensus WHERE item_id = $1`, itemID)
		br := tx.SendBatch(ctx, b)
		var current []Judgment
		var adj *Adjudication
		var old ConsensusRow
		var had bool
		err := func() error {
			defer br.Close()
			var discard [3]*string
			err := br.QueryRow().Scan(&projectID, &queryID, &kind, &discard[0], &discard[1], &discard[2])
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("store: item %d: %w", itemID, ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("store: lock consensus of item %d: %w", itemID, err)
			}
			rows, _ := br.Query()
			if current, err = pgx.CollectRows(rows, pgx.RowToStructByName[Judgment]); err != nil {
				return fmt.Errorf("store: current judgments of item %d: %w", itemID, err)
			}
			rows, _ = br.Query()
			adjs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Adjudication])
			if err != nil {
				return fmt.Errorf("store: adjudication of item %d: %w", itemID, err)
			}
			if len(adjs) > 0 {
				adj = &adjs[0]
			}
			rows, _ = br.Query()
			olds, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConsensusRow])
			if err != nil {
				return fmt.Errorf("store: consensus of item %d: %w", itemID, err)
			}
			if len(olds) > 0 {
				old, had = olds[0], true
			}
			return br.Close()
		}()
		if err != nil || kind != "relevance" {
			return err
		}
		row, ok = decide(current, adj)
		if !ok {
			if !had {
				return nil
			}
			changed = true
			w := &pgx.Batch{}
			w.Queue(`DELETE FROM consensus WHERE item_id = $1`, itemID)
			queueAudit(w, 0, projectID, "consensus.clear", "item", fmt.Sprint(itemID), map[string]any{"old": old})
			if err := tx.SendBatch(ctx, w).Close(); err != nil {
				return fmt.Errorf("store: clear consensus of item %d: %w", itemID, err)
			}
			return nil
		}
		row.ItemID, row.ProjectID, row.QueryID = itemID, projectID, queryID
		if adj != nil {
			row.AdjudicationID = &adj.ID
		}
		if had && sameConsensus(old, row) {
			// Unchanged, but mark it current: ConsensusStale compares times.
			row = old
			if _, err := tx.Exec(ctx, `UPDATE consensus SET updated_at = now() WHERE item_id = $1`, itemID); err != nil {
				return fmt.Errorf("store: touch consensus: %w", err)
			}
			return nil
		}
		changed = true
		detail := map[string]any{"new": consensusDetail(row)}
		if had {
			detail["old"] = consensusDetail(old)
		}
		w := &pgx.Batch{}
		w.Queue(`INSERT INTO consensus (item_id, project_id, query_id, relevance, status, votes, relevant_votes,
				contradictions, needs_adjudication, adjudication_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (item_id) DO UPDATE SET relevance = EXCLUDED.relevance, status = EXCLUDED.status, votes = EXCLUDED.votes,
				relevant_votes = EXCLUDED.relevant_votes, contradictions = EXCLUDED.contradictions,
				needs_adjudication = EXCLUDED.needs_adjudication, adjudication_id = EXCLUDED.adjudication_id, updated_at = now()
			RETURNING `+consensusCols,
			itemID, projectID, queryID, row.Relevance, row.Status, row.Votes, row.RelevantVotes, row.Contradictions,
			row.NeedsAdjudication, row.AdjudicationID)
		queueAudit(w, 0, projectID, "consensus.update", "item", fmt.Sprint(itemID), detail)
		wr := tx.SendBatch(ctx, w)
		rows, _ := wr.Query()
		row, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ConsensusRow])
		if cerr := wr.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("store: save consensus of item %d: %w", itemID, err)
		}
		return nil
	})
	return row, ok, changed, err
}

func sameConsensus(a, b ConsensusRow) bool {
	sameAdj := (a.AdjudicationID == nil) == (b.AdjudicationID == nil) &&
		(a.AdjudicationID == nil || *a.AdjudicationID == *b.AdjudicationID)
	return sameAdj && a.Relevance == b.Relevance && a.Status == b.Status && a.Votes == b.Votes &&
		a.RelevantVotes == b.RelevantVotes && a.Contradictions == b.Contradictions && a.NeedsAdjudication == b.NeedsAdjudication
}

func consensusDetail(r ConsensusRow) map[string]any {
	return map[string]any{"relevance": r.Relevance, "status": r.Status, "votes": r.Votes,
		"relevant_votes": r.RelevantVotes, "needs_adjudication": r.NeedsAdjudication}
}

// SyncConsensus recomputes the consensus of every relevance item of a
// project with decide (the same rules RefreshConsensus applies per item)
// and writes the rows that differ, adds missing ones and removes those
// without a consensus, in one transaction with one consensus.sync audit
// entry. It returns how many rows changed. It holds the project's
// consensus lock exclusively (see RefreshConsensus), so a concurrent
// refresh either finished before the judgments are read or waits and
// recomputes after this commits: a sync never writes back a stale label.
func (s *Store) SyncConsensus(ctx context.Context, projectID int64, decide DecideFunc) (int, error) {
	changed := 0
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		type itemRow struct {
			id, queryID int64
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, `+lockKey+`)`, lockConsensusProject, projectID); err != nil {
			return fmt.Errorf("store: lock consensus of project %d: %w", projectID, err)
		}
		rows, err := tx.Query(ctx, `SELECT id, query_id FROM items WHERE project_id = $1 AND kind = 'relevance' ORDER BY id`, projectID)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		var items []itemRow
		var it itemRow
		if _, err := pgx.ForEachRow(rows, []any{&it.id, &it.queryID}, func() error { items = append(items, it); return nil }); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		rows, _ = tx.Query(ctx, `SELECT `+judgmentCols+` FROM current_judgments
			WHERE project_id = $1 AND item_kind = 'relevance' AND relevance IS NOT NULL ORDER BY item_id, id`, projectID)
		current, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		byItem := map[int64][]Judgment{}
		for _, j := range current {
			byItem[j.ItemID] = append(byItem[j.ItemID], j)
		}
		rows, _ = tx.Query(ctx, `SELECT DISTINCT ON (a.item_id) a.id, a.item_id, a.user_id, a.relevance, a.note, a.created_at
			FROM adjudications a JOIN items i ON i.id = a.item_id
			WHERE i.project_id = $1 ORDER BY a.item_id, a.id DESC`, projectID)
		adjs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Adjudication])
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		adjOf := map[int64]*Adjudication{}
		for i := range adjs {
			adjOf[adjs[i].ItemID] = &adjs[i]
		}
		var out []ConsensusRow
		for _, it := range items {
			r, ok := decide(byItem[it.id], adjOf[it.id])
			if !ok {
				continue
			}
			r.ItemID, r.ProjectID, r.QueryID, r.AdjudicationID = it.id, projectID, it.queryID, nil
			if a := adjOf[it.id]; a != nil {
				r.AdjudicationID = &a.ID
			}
			out = append(out, r)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE consensus_in (LIKE consensus INCLUDING DEFAULTS) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"consensus_in"},
			[]string{"item_id", "project_id", "query_id", "relevance", "status", "votes", "relevant_votes", "contradictions", "needs_adjudication", "adjudication_id"},
			pgx.CopyFromSlice(len(out), func(i int) ([]any, error) {
				r := out[i]
				return []any{r.ItemID, projectID, r.QueryID, r.Relevance, r.Status, r.Votes, r.RelevantVotes, r.Contradictions, r.NeedsAdjudication, r.AdjudicationID}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM consensus c WHERE c.project_id = $1
			AND NOT EXISTS (SELECT 1 FROM consensus_in n WHERE n.item_id = c.item_id)`, projectID)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		changed += int(tag.RowsAffected())
		tag, err = tx.Exec(ctx, `INSERT INTO consensus (item_id, project_id, query_id, relevance, status, votes, relevant_votes,
				contradictions, needs_adjudication, adjudication_id)
			SELECT item_id, project_id, query_id, relevance, status, votes, relevant_votes, contradictions, needs_adjudication, adjudication_id
			FROM consensus_in
			ON CONFLICT (item_id) DO UPDATE SET relevance = EXCLUDED.relevance, status = EXCLUDED.status, votes = EXCLUDED.votes,
				relevant_votes = EXCLUDED.relevant_votes, contradictions = EXCLUDED.contradictions,
				needs_adjudication = EXCLUDED.needs_adjudication, adjudication_id = EXCLUDED.adjudication_id, updated_at = now()
			WHERE (consensus.relevance, consensus.status, consensus.votes, consensus.relevant_votes, consensus.contradictions,
				consensus.needs_adjudication, consensus.adjudication_id)
				IS DISTINCT FROM (EXCLUDED.relevance, EXCLUDED.status, EXCLUDED.votes, EXCLUDED.relevant_votes,
				EXCLUDED.contradictions, EXCLUDED.needs_adjudication, EXCLUDED.adjudication_id)`)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		changed += int(tag.RowsAffected())
		// Rows that were right but older than a judgment or adjudication
		// of their item are current now (see ConsensusStale).
		if _, err := tx.Exec(ctx, `UPDATE consensus c SET updated_at = now() WHERE c.project_id = $1 AND (
				EXISTS (SELECT 1 FROM judgments j WHERE j.item_id = c.item_id AND j.created_at > c.updated_at)
				OR EXISTS (SELECT 1 FROM adjudications a WHERE a.item_id = c.item_id AND a.created_at > c.updated_at))`, projectID); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		if changed == 0 {
			return nil
		}
		return audit(ctx, tx, 0, projectID, "consensus.sync", "project", fmt.Sprint(projectID), map[string]any{"changed": changed, "items": len(out)})
	})
	return changed, err
}

// ConsensusOf returns an item's stored consensus, or ErrNotFound.
func (s *Store) ConsensusOf(ctx context.Context, itemID int64) (ConsensusRow, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+consensusCols+` FROM consensus WHERE item_id = $1`, itemID)
	return collectOne[ConsensusRow](rows, fmt.Sprintf("consensus of item %d", itemID))
}

// AddAdjudication records a researcher's decision on a relevance item
// (audited as adjudication.decide). The caller refreshes the consensus.
func (s *Store) AddAdjudication(ctx context.Context, itemID, userID int64, relevance int16, note string) (Adjudication, error) {
	var a Adjudication
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var projectID int64
		var kind string
		err := tx.QueryRow(ctx, `SELECT project_id, kind FROM items WHERE id = $1`, itemID).Scan(&projectID, &kind)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: item %d: %w", itemID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: item %d: %w", itemID, err)
		}
		if kind != "relevance" {
			return fmt.Errorf("store: item %d is a %s task, only relevance items are adjudicated: %w", itemID, kind, ErrConflict)
		}
		rows, _ := tx.Query(ctx, `INSERT INTO adjudications (item_id, user_id, relevance, note) VALUES ($1, $2, $3, $4)
			RETURNING `+adjudicationCols, itemID, userID, relevance, note)
		a, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Adjudication])
		if err != nil {
			return fmt.Errorf("store: add adjudication: %w", err)
		}
		return audit(ctx, tx, userID, projectID, "adjudication.decide", "item", fmt.Sprint(itemID),
			map[string]any{"adjudication_id": a.ID, "relevance": relevance, "note": note})
	})
	return a, err
}

// AdjudicationsOf returns every adjudication of an item, oldest first.
func (s *Store) AdjudicationsOf(ctx context.Context, itemID int64) ([]Adjudication, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+adjudicationCols+` FROM adjudications WHERE item_id = $1 ORDER BY id`, itemID)
	return collectAll[Adjudication](rows, fmt.Sprintf("adjudications of item %d", itemID))
}

// AdjudicationQueue lists a project's items that need adjudication, oldest
// item first, and how many there are in all.
func (s *Store) AdjudicationQueue(ctx context.Context, projectID int64, limit, offset int) ([]ConsensusRow, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM consensus WHERE project_id = $1 AND needs_adjudication`, projectID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: adjudication queue: %w", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+consensusCols+` FROM consensus WHERE project_id = $1 AND needs_adjudication
		ORDER BY item_id LIMIT $2 OFFSET $3`, projectID, limit, offset)
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConsensusRow])
	if err != nil {
		return nil, 0, fmt.Errorf("store: adjudication queue: %w", err)
	}
	return rs, total, nil
}

// ConsensusQrel is one consensus label as exported.
type ConsensusQrel struct {
	ItemID     int64
	QueryExtID string
	DocExtID   string
	Relevance  int
	Status     string
	Votes      int
}

// EachConsensusQrel streams a project's consensus labels in query import
// order, then document id.
func (s *Store) EachConsensusQrel(ctx context.Context, projectID int64, fn func(ConsensusQrel) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT c.item_id, q.ext_id, d.ext_id, c.relevance, c.status, c.votes
		FROM consensus c
		JOIN items i ON i.id = c.item_id
		JOIN queries q ON q.id = c.query_id
		JOIN documents d ON d.id = i.document_id
		WHERE c.project_id = $1
		ORDER BY q.seq, q.id, d.ext_id`, projectID)
	var r ConsensusQrel
	return forEach(rows, "consensus qrels", func() error { return fn(r) },
		&r.ItemID, &r.QueryExtID, &r.DocExtID, &r.Relevance, &r.Status, &r.Votes)
}

// ConsensusItemIDs lists the relevance items of a project that have at
// least one judgment (what a full consensus rebuild must visit).
func (s *Store) ConsensusItemIDs(ctx context.Context, projectID int64) ([]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT i.id FROM items i JOIN judgments j ON j.item_id = i.id
		WHERE i.project_id = $1 AND i.kind = 'relevance' ORDER BY i.id`, projectID)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: judged items: %w", err)
	}
	return ids, nil
}

// ConsensusStale reports whether some judgment or adjudication of a
// project is newer than its item's stored consensus (its per-item refresh
// was lost), so that a full sync is due: a judgment (a skip included)
// newer than its item's row, a rater's current vote on an item without a
// row, an adjudication newer than the row or without one. A vote its rater
// withdrew (a later skip) leaves no row behind and is not a lost refresh
// (before, such an item made its project stale for good, and every export
// and start-up repair re-synced the whole project).
func (s *Store) ConsensusStale(ctx context.Context, projectID int64) (bool, error) {
	var stale bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (
			SELECT 1 FROM judgments j
			JOIN items i ON i.id = j.item_id
			JOIN consensus c ON c.item_id = j.item_id
			WHERE i.project_id = $1 AND i.kind = 'relevance' AND c.updated_at < j.created_at
		) OR EXISTS (
			SELECT 1 FROM judgments j
			JOIN items i ON i.id = j.item_id
			WHERE i.project_id = $1 AND i.kind = 'relevance' AND j.relevance IS NOT NULL AND j.skip_reason = ''
			  AND NOT EXISTS (SELECT 1 FROM consensus c WHERE c.item_id = j.item_id)
			  -- the rater's current judgment (as current_judgments, without sorting the project's)
			  AND NOT EXISTS (SELECT 1 FROM judgments l WHERE l.item_id = j.item_id AND l.user_id = j.user_id AND l.id > j.id)
		) OR EXISTS (
			SELECT 1 FROM adjudications a
			JOIN items i ON i.id = a.item_id
			LEFT JOIN consensus c ON c.item_id = a.item_id
			WHERE i.project_id = $1 AND (c.item_id IS NULL OR c.updated_at < a.created_at)
		)`, projectID).Scan(&stale)
	if err != nil {
		return false, fmt.Errorf("store: consensus staleness: %w", err)
	}
	return stale, nil
}
