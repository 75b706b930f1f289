package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// JudgmentBatcher group-commits judgments: its one goroutine takes every
// judgment that arrived while the previous batch was being written and
// writes them together, in one statement and one transaction (one WAL
// flush), then answers each caller. Nothing waits for a batch to fill: a
// judgment that arrives while the writer is idle is written at once, as a
// batch of one. SaveJudgment returns only after the judgment's
// transaction committed (or failed), with the same results and errors as
// Store.SaveJudgment. Build it with NewJudgmentBatcher, stop it with Close.
type JudgmentBatcher struct {
	st  *Store
	log *slog.Logger
	max int

	mu     sync.Mutex
	queue  []*pendingJudgment
	closed bool
	wake   chan struct{} // one token: the queue may have work
	done   chan struct{} // closed when the writer has returned
}

// pendingJudgment is one caller's judgment and where its answer goes.
type pendingJudgment struct {
	ctx context.Context
	n   NewJudgment
	res chan judgmentResult // buffered: the writer never blocks on it
}

type judgmentResult struct {
	j        Judgment
	inserted bool
	err      error
}

// MaxJudgmentBatch is the most judgments one batch writes; the rest wait
// for the next batch.
const MaxJudgmentBatch = 128

// judgmentBatchTimeout bounds one batch's database work (the callers'
// contexts do not: one caller going away must not fail the others).
const judgmentBatchTimeout = 30 * time.Second

// ErrBatcherClosed is returned for a judgment sent after Close.
var ErrBatcherClosed = errors.New("store: the judgment writer is stopped")

// NewJudgmentBatcher starts the writer over st. log (may be nil) gets the
// batches that failed and were written again one by one.
func NewJudgmentBatcher(st *Store, log *slog.Logger) *JudgmentBatcher {
	b := newJudgmentBatcher(st, log)
	go b.run()
	return b
}

// newJudgmentBatcher is a JudgmentBatcher whose writer is not started.
func newJudgmentBatcher(st *Store, log *slog.Logger) *JudgmentBatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &JudgmentBatcher{st: st, log: log, max: MaxJudgmentBatch, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Close stops taking judgments, writes those already queued, and returns
// once the writer has stopped. Call it after the HTTP server has stopped.
func (b *JudgmentBatcher) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
	<-b.done
}

func (b *JudgmentBatcher) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// SaveJudgment queues n for the next batch and waits for its commit: the
// same contract as Store.SaveJudgment (idempotent by client id, supersedes
// the rater's previous judgment, completes or skips the assignment, adds
// the activity, creates the follow-up item). If ctx ends first it returns
// ctx's error; a judgment already taken into a batch may still be stored
// then, as a request cut off mid-statement may be (the client's retry
// with the same client id finds it).
func (b *JudgmentBatcher) SaveJudgment(ctx context.Context, n NewJudgment) (Judgment, bool, error) {
	p := &pendingJudgment{ctx: ctx, n: n, res: make(chan judgmentResult, 1)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return Judgment{}, false, ErrBatcherClosed
	}
	b.queue = append(b.queue, p)
	b.mu.Unlock()
	b.signal()
	select {
	case r := <-p.res:
		return r.j, r.inserted, r.err
	case <-ctx.Done():
		return Judgment{}, false, fmt.Errorf("store: save judgment: %w", ctx.Err())
	}
}

// run is the writer: it takes what is queued (at most max), writes it,
// and repeats; it returns once closed and the queue is empty.
func (b *JudgmentBatcher) run() {
	defer close(b.done)
	for {
		b.mu.Lock()
		k := min(len(b.queue), b.max)
		batch := append([]*pendingJudgment(nil), b.queue[:k]...)
		b.queue = b.queue[k:]
		if len(b.queue) == 0 {
			b.queue = nil // let the backing array go
		}
		closed := b.closed
		b.mu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-b.wake
			continue
		}
		b.write(batch)
	}
}

// write stores a batch. Callers that went away before their turn are
// answered with their context's error and not written. Judgments that
// repeat an earlier one's client id, or the same rater's item, within
// the batch are written in a later round, after the earlier one committed:
// a repeated client id then finds the stored row, and a second judgment
// of the item supersedes the first, as when they arrive apart.
func (b *JudgmentBatcher) write(batch []*pendingJudgment) {
	live := batch[:0]
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.res <- judgmentResult{err: fmt.Errorf("store: save judgment: %w", err)}
			continue
		}
		live = append(live, p)
	}
	for rest := live; len(rest) > 0; {
		var round []*pendingJudgment
		round, rest = splitRound(rest)
		b.writeRound(round)
	}
}

// splitRound takes, in order, the judgments whose client id and (item,
// rater) appear once among those taken; the others are left for a later
// round, in their order.
func splitRound(ps []*pendingJudgment) (round, rest []*pendingJudgment) {
	type itemRater struct{ item, user int64 }
	ids := make(map[string]bool, len(ps))
	pairs := make(map[itemRater]bool, len(ps))
	for _, p := range ps {
		id, pair := strings.ToLower(p.n.ClientID), itemRater{p.n.ItemID, p.n.UserID}
		if ids[id] || pairs[pair] {
			rest = append(rest, p)
			continue
		}
		ids[id], pairs[pair] = true, true
		round = append(round, p)
	}
	return round, rest
}

// writeRound writes judgments with distinct client ids and (item, rater)
// pairs in one transaction and answers each after the commit. If the
// batch fails as a whole (a constraint or foreign-key error of one row,
// an item deleted meanwhile, a follow-up item that exists, a lost
// connection), each judgment is written again on its own with
// Store.SaveJudgment, so a failing row fails only its own request, with
// its own error, and the others are stored.
func (b *JudgmentBatcher) writeRound(round []*pendingJudgment) {
	ns := make([]NewJudgment, len(round))
	for i, p := range round {
		ns[i] = p.n
	}
	ctx, cancel := context.WithTimeout(context.Background(), judgmentBatchTimeout)
	res, err := b.st.saveJudgmentBatch(ctx, ns)
	cancel()
	if err == nil {
		for i, p := range round {
			p.res <- res[i]
		}
		return
	}
	if len(round) > 1 {
		b.log.Warn("judgment batch failed, writing its judgments one by one", "judgments", len(round), "err", err)
	}
	for _, p := range round {
		j, inserted, err := b.st.SaveJudgment(p.ctx, p.n)
		p.res <- judgmentResult{j: j, inserted: inserted, err: err}
	}
}

// saveJudgmentBatch is saveJudgment for many rows at once, on arrays:
// each row supersedes its rater's latest judgment of the item, completes
// (or skips) their assignment, and adds its time to the day's activity
// (summed per rater and project, since one upsert may not touch a row
// twice). Rows must have distinct client ids and distinct (item, rater)
// pairs (splitRound): the supersede subquery sees the judgments stored
// before the statement. A client id stored before inserts nothing; the
// statement returns the inserted rows only. Assignments are locked in id
// order, activity rows in key order.
const saveJudgmentBatch = `WITH input AS (
		SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::smallint[], $6::text[],
			$7::jsonb[], $8::jsonb[], $9::boolean[], $10::text[], $11::text[], $12::integer[], $13::text[], $14::bigint[])
			WITH ORDINALITY AS t(client_id, item_id, user_id, kind, relevance, evidence, attributions, payload,
				contradiction, comment, skip_reason, time_spent_ms, status, project_id, ord)
	), ins AS (
		INSERT INTO judgments (client_id, item_id, user_id, kind, relevance, evidence, attributions,
			payload, contradiction, comment, skip_reason, time_spent_ms, supersedes)
		SELECT i.client_id, i.item_id, i.user_id, i.kind, i.relevance, i.evidence, i.attributions,
			i.payload, i.contradiction, i.comment, i.skip_reason, i.time_spent_ms,
			(SELECT j.id FROM judgments j WHERE j.item_id = i.item_id AND j.user_id = i.user_id ORDER BY j.id DESC LIMIT 1)
		FROM input i ORDER BY i.ord
		ON CONFLICT (client_id) DO NOTHING
		RETURNING ` + judgmentCols + `
	), stored AS (
		SELECT ins.item_id, ins.user_id, ins.time_spent_ms, i.status, i.project_id
		FROM ins JOIN input i ON i.client_id = ins.client_id::uuid
	), prev AS (
		SELECT a.id, s.status FROM assignments a JOIN stored s ON a.item_id = s.item_id AND a.user_id = s.user_id
		ORDER BY a.id
		FOR UPDATE OF a
	), completed AS (
		UPDATE assignments a SET status = prev.status, done_at = now() FROM prev WHERE a.id = prev.id
		RETURNING a.id
	), active AS (
		INSERT INTO activity (user_id, project_id, day, active_ms)
		SELECT user_id, project_id, current_date, sum(time_spent_ms) FROM stored
		GROUP BY user_id, project_id ORDER BY user_id, project_id
		ON CONFLICT (user_id, project_id, day) DO UPDATE SET active_ms = activity.active_ms + EXCLUDED.active_ms
		RETURNING 1
	)
	SELECT * FROM ins`

// saveJudgmentBatch writes ns (see the statement above) in one
// transaction, with their follow-up items, and returns each one's result
// in order: inserted, or the row stored before under its client id (or
// that judgment's conflict, as sameAsStored says). An error of the whole
// (any statement failing) is returned as such, with nothing stored; a
// deadlock victim or serialization failure is run again (retryAborted).
func (s *Store) saveJudgmentBatch(ctx context.Context, ns []NewJudgment) ([]judgmentResult, error) {
	var (
		clientIDs, kinds, comments, skips, statuses []string
		attrs, payloads                             []string
		items, users, projects                      []int64
		rels                                        []*int16
		evidence                                    []*string
		contradictions                              []bool
		spent                                       []int32
		followUps                                   bool
	)
	for _, n := range ns {
		a, p, status := n.normalised()
		clientIDs = append(clientIDs, n.ClientID)
		items, users, projects = append(items, n.ItemID), append(users, n.UserID), append(projects, n.ProjectID)
		kinds, comments, skips, statuses = append(kinds, n.Kind), append(comments, n.Comment), append(skips, n.SkipReason), append(statuses, status)
		rels, evidence = append(rels, n.Relevance), append(evidence, n.Evidence)
		attrs, payloads = append(attrs, string(a)), append(payloads, string(p))
		contradictions, spent = append(contradictions, n.Contradiction), append(spent, int32(n.TimeSpentMs))
		followUps = followUps || n.FollowUp != nil
	}
	var res []judgmentResult
	save := func(q querier) error {
		res = make([]judgmentResult, len(ns))
		rows, _ := q.Query(ctx, saveJudgmentBatch, clientIDs, items, users, kinds, rels, evidence, attrs, payloads,
			contradictions, comments, skips, spent, statuses, projects)
		got, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: save %d judgments: %w", len(ns), err)
		}
		byID := make(map[string]Judgment, len(got))
		for _, j := range got {
			byID[j.ClientID] = j
		}
		var retried []string
		for i, n := range ns {
			if j, ok := byID[strings.ToLower(n.ClientID)]; ok {
				res[i] = judgmentResult{j: j, inserted: true}
				if n.FollowUp != nil {
					if _, err := createItem(ctx, q, *n.FollowUp); err != nil {
						return err
					}
				}
				continue
			}
			retried = append(retried, n.ClientID)
		}
		if len(retried) == 0 {
			return nil
		}
		// Retries: hand back what was stored the first time.
		rows, _ = q.Query(ctx, `SELECT `+judgmentCols+` FROM judgments WHERE client_id = ANY ($1::uuid[])`, retried)
		before, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: judgments stored before: %w", err)
		}
		for _, j := range before {
			byID[j.ClientID] = j
		}
		for i, n := range ns {
			if res[i].inserted {
				continue
			}
			j, ok := byID[strings.ToLower(n.ClientID)]
			if !ok {
				return fmt.Errorf("store: judgment %s: %w", n.ClientID, ErrNotFound)
			}
			res[i] = judgmentResult{j: j, err: sameAsStored(j, n)}
		}
		return nil
	}
	err := retryAborted(ctx, func() error {
		if !followUps {
			return save(s.pool)
		}
		return s.InTx(ctx, func(tx pgx.Tx) error { return save(tx) })
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
