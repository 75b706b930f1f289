package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// ConsensusRefresh is one item's outcome of RefreshConsensusMany.
type ConsensusRefresh struct {
	ItemID, ProjectID int64
	Row               ConsensusRow // the stored row (zero when OK is false)
	OK                bool         // the item has a consensus
	Changed           bool         // the stored row was written or removed
	Current           []Judgment   // what decide was given
	Adj               *Adjudication
}

// MaxConsensusBatch bounds the items of one RefreshConsensusMany call.
const MaxConsensusBatch = 1000

// RefreshConsensusMany is RefreshConsensus for a burst of items in one
// transaction of four round trips, whatever their number: the locks (each
// project's key shared, in project order, then each item's key, in item
// order: the order every refresh and sync takes them, so two servers'
// bursts cannot deadlock), one read each of the items' current judgments,
// latest adjudications and stored rows, and one batch of writes (the
// removed rows, the changed rows, the unchanged rows marked current, and
// one audit row per change, as RefreshConsensus writes them). Items that
// no longer exist or are not relevance items are left out of the result.
// A refresh per item cost about ten statements; under a crowd's burst of
// judgments it was half of the statements the judging path sent.
func (s *Store) RefreshConsensusMany(ctx context.Context, itemIDs []int64, decide DecideFunc) ([]ConsensusRefresh, error) {
	ids := slices.Clone(itemIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > MaxConsensusBatch {
		return nil, fmt.Errorf("store: refresh consensus: %d items, at most %d at once", len(ids), MaxConsensusBatch)
	}
	var out []ConsensusRefresh
	err := retryAborted(ctx, func() error {
		return s.InTx(ctx, func(tx pgx.Tx) error {
			var err error
			out, err = refreshMany(ctx, tx, ids, decide)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: refresh consensus of %d items: %w", len(ids), err)
	}
	return out, nil
}

// refreshMany is one attempt of RefreshConsensusMany inside tx; ids are
// sorted and distinct.
func refreshMany(ctx context.Context, tx pgx.Tx, ids []int64, decide DecideFunc) ([]ConsensusRefresh, error) {
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true),
			count(pg_advisory_xact_lock_shared($2, (p % 2147483647)::int))
		FROM (SELECT DISTINCT project_id AS p FROM items WHERE id = ANY ($1::bigint[]) ORDER BY 1) ps`,
		ids, lockConsensusProject)
	b.Queue(`SELECT i.id, i.project_id, i.query_id, i.kind, pg_advisory_xact_lock($2, (i.id % 2147483647)::int)::text
		FROM (SELECT id, project_id, query_id, kind FROM items WHERE id = ANY ($1::bigint[]) ORDER BY id) i`,
		ids, lockConsensusItem)
	b.Queue(`SELECT `+judgmentCols+` FROM `+currentJudgmentsOfItems+` latest
		WHERE relevance IS NOT NULL ORDER BY item_id, id`, ids)
	b.Queue(`SELECT DISTINCT ON (item_id) `+adjudicationCols+` FROM adjudications
		WHERE item_id = ANY ($1::bigint[]) ORDER BY item_id, id DESC`, ids)
	b.Queue(`SELECT `+consensusCols+` FROM consensus WHERE item_id = ANY ($1::bigint[])`, ids)

	type itemRow struct {
		id, project, query int64
		kind               string
	}
	var items []itemRow
	current := map[int64][]Judgment{}
	adjs := map[int64]*Adjudication{}
	olds := map[int64]ConsensusRow{}
	err := func() error {
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("lock projects: %w", err)
		}
		rows, _ := br.Query()
		var discard *string
		var it itemRow
		if _, err := pgx.ForEachRow(rows, []any{&it.id, &it.project, &it.query, &it.kind, &discard}, func() error {
			items = append(items, it)
			return nil
		}); err != nil {
			return fmt.Errorf("lock items: %w", err)
		}
		rows, _ = br.Query()
		js, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("current judgments: %w", err)
		}
		for _, j := range js {
			current[j.ItemID] = append(current[j.ItemID], j)
		}
		rows, _ = br.Query()
		as, err := pgx.CollectRows(rows, pgx.RowToStructByName[Adjudication])
		if err != nil {
			return fmt.Errorf("adjudications: %w", err)
		}
		for i := range as {
			adjs[as[i].ItemID] = &as[i]
		}
		rows, _ = br.Query()
		cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConsensusRow])
		if err != nil {
			return fmt.Errorf("consensus rows: %w", err)
		}
		for _, c := range cs {
			olds[c.ItemID] = c
		}
		return br.Close()
	}()
	if err != nil {
		return nil, err
	}

	// The writes, as RefreshConsensus makes them item by item.
	var (
		out                        []ConsensusRefresh
		cleared, touched           []int64
		up                         upsertArrays
		auditProject               []int64
		auditAction, auditEntityID []string
		auditDetail                [][]byte
	)
	addAudit := func(projectID int64, action string, itemID int64, detail map[string]any) error {
		raw, err := json.Marshal(detail)
		if err != nil {
			return fmt.Errorf("audit detail of item %d: %w", itemID, err)
		}
		auditProject = append(auditProject, projectID)
		auditAction = append(auditAction, action)
		auditEntityID = append(auditEntityID, fmt.Sprint(itemID))
		auditDetail = append(auditDetail, raw)
		return nil
	}
	changedAt := map[int64]int{} // item → index in out of an upserted row
	for _, it := range items {
		if it.kind != "relevance" {
			continue
		}
		r := ConsensusRefresh{ItemID: it.id, ProjectID: it.project, Current: current[it.id], Adj: adjs[it.id]}
		old, had := olds[it.id]
		row, ok := decide(r.Current, r.Adj)
		r.OK = ok
		switch {
		case !ok && !had:
		case !ok:
			r.Changed = true
			cleared = append(cleared, it.id)
			if err := addAudit(it.project, "consensus.clear", it.id, map[string]any{"old": old}); err != nil {
				return nil, err
			}
		default:
			row.ItemID, row.ProjectID, row.QueryID = it.id, it.project, it.query
			if r.Adj != nil {
				row.AdjudicationID = &r.Adj.ID
			}
			if had && sameConsensus(old, row) {
				r.Row = old
				touched = append(touched, it.id)
				break
			}
			r.Changed, r.Row = true, row
			detail := map[string]any{"new": consensusDetail(row)}
			if had {
				detail["old"] = consensusDetail(old)
			}
			if err := addAudit(it.project, "consensus.update", it.id, detail); err != nil {
				return nil, err
			}
			changedAt[it.id] = len(out)
			up.add(row)
		}
		out = append(out, r)
	}
	w := &pgx.Batch{}
	if len(cleared) > 0 {
		w.Queue(`DELETE FROM consensus WHERE item_id = ANY ($1::bigint[])`, cleared)
	}
	if len(up.item) > 0 {
		w.Queue(`INSERT INTO consensus (item_id, project_id, query_id, relevance, status, votes, relevant_votes,
				contradictions, needs_adjudication, adjudication_id)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::smallint[], $5::text[], $6::int[], $7::int[],
				$8::int[], $9::boolean[], $10::bigint[])
			ON CONFLICT (item_id) DO UPDATE SET relevance = EXCLUDED.relevance, status = EXCLUDED.status, votes = EXCLUDED.votes,
				relevant_votes = EXCLUDED.relevant_votes, contradictions = EXCLUDED.contradictions,
				needs_adjudication = EXCLUDED.needs_adjudication, adjudication_id = EXCLUDED.adjudication_id, updated_at = now()
			RETURNING `+consensusCols,
			up.item, up.project, up.query, up.relevance, up.status, up.votes, up.relevantVotes, up.contradictions,
			up.needsAdj, up.adjID)
	}
	if len(touched) > 0 {
		// Unchanged, but marked current: ConsensusStale compares times.
		w.Queue(`UPDATE consensus SET updated_at = now() WHERE item_id = ANY ($1::bigint[])`, touched)
	}
	if len(auditAction) > 0 {
		w.Queue(`INSERT INTO audit_log (project_id, action, entity, entity_id, detail)
			SELECT p, a, 'item', e, d FROM unnest($1::bigint[], $2::text[], $3::text[], $4::jsonb[]) AS t(p, a, e, d)`,
			auditProject, auditAction, auditEntityID, auditDetail)
	}
	if w.Len() == 0 {
		return out, nil
	}
	wr := tx.SendBatch(ctx, w)
	defer wr.Close()
	if len(cleared) > 0 {
		if _, err := wr.Exec(); err != nil {
			return nil, fmt.Errorf("clear consensus: %w", err)
		}
	}
	if len(up.item) > 0 {
		rows, _ := wr.Query()
		saved, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConsensusRow])
		if err != nil {
			return nil, fmt.Errorf("save consensus: %w", err)
		}
		if len(saved) != len(up.item) {
			return nil, fmt.Errorf("save consensus: %d rows written of %d", len(saved), len(up.item))
		}
		for _, row := range saved {
			out[changedAt[row.ItemID]].Row = row
		}
	}
	if len(touched) > 0 {
		if _, err := wr.Exec(); err != nil {
			return nil, fmt.Errorf("touch consensus: %w", err)
		}
	}
	if len(auditAction) > 0 {
		if _, err := wr.Exec(); err != nil {
			return nil, fmt.Errorf("audit consensus: %w", err)
		}
	}
	if err := wr.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// upsertArrays are the columns of the consensus rows to write, one array
// per column (the unnest of RefreshConsensusMany's upsert).
type upsertArrays struct {
	item, project, query                 []int64
	relevance                            []int16
	status                               []string
	votes, relevantVotes, contradictions []int
	needsAdj                             []bool
	adjID                                []*int64
}

func (u *upsertArrays) add(r ConsensusRow) {
	u.item = append(u.item, r.ItemID)
	u.project = append(u.project, r.ProjectID)
	u.query = append(u.query, r.QueryID)
	u.relevance = append(u.relevance, r.Relevance)
	u.status = append(u.status, r.Status)
	u.votes = append(u.votes, r.Votes)
	u.relevantVotes = append(u.relevantVotes, r.RelevantVotes)
	u.contradictions = append(u.contradictions, r.Contradictions)
	u.needsAdj = append(u.needsAdj, r.NeedsAdjudication)
	u.adjID = append(u.adjID, r.AdjudicationID)
}
