package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Judgment events between servers: a server that stores a relevance
// judgment says so on a Postgres channel (NOTIFY), and every server sharing
// the database listens (LISTEN), so that each one's live dashboards see
// every judgment, wherever it was made.

// judgmentChannel is the channel of judgment events.
const judgmentChannel = "boolpool_judgments"

// JudgmentEvent is one judgment event: which server stored a judgment of
// which item of which project.
type JudgmentEvent struct {
	Origin    string // the storing server's id
	ProjectID int64
	ItemID    int64
}

// NotifyJudgment sends a judgment event (delivered to listeners when the
// statement's transaction commits; here at once).
func (s *Store) NotifyJudgment(ctx context.Context, e JudgmentEvent) error {
	payload := fmt.Sprintf("%s %d %d", e.Origin, e.ProjectID, e.ItemID)
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, judgmentChannel, payload); err != nil {
		return fmt.Errorf("store: notify judgment: %w", err)
	}
	return nil
}

// NotifyJudgments sends several judgment events in one statement (each
// its own notification, in order).
func (s *Store) NotifyJudgments(ctx context.Context, es []JudgmentEvent) error {
	if len(es) == 0 {
		return nil
	}
	payloads := make([]string, len(es))
	for i, e := range es {
		payloads[i] = fmt.Sprintf("%s %d %d", e.Origin, e.ProjectID, e.ItemID)
	}
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n`,
		judgmentChannel, payloads); err != nil {
		return fmt.Errorf("store: notify %d judgments: %w", len(es), err)
	}
	return nil
}

// ListenJudgments calls fn with every judgment event (its own included)
// until ctx ends or the connection fails. It holds one connection of the
// pool for as long as it listens, and closes it at the end (a connection
// that listened is not handed back to the pool).
func (s *Store) ListenJudgments(ctx context.Context, ready func(), fn func(JudgmentEvent)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("store: listen: %w", err)
	}
	pc := conn.Hijack()
	defer pc.Close(context.WithoutCancel(ctx))
	if _, err := pc.Exec(ctx, `LISTEN `+judgmentChannel); err != nil {
		return fmt.Errorf("store: listen: %w", err)
	}
	if ready != nil {
		ready()
	}
	for {
		n, err := pc.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("store: listen: %w", err)
		}
		e, ok := parseJudgmentEvent(n.Payload)
		if !ok {
			continue // not ours
		}
		fn(e)
	}
}

func parseJudgmentEvent(payload string) (JudgmentEvent, bool) {
	f := strings.Fields(payload)
	if len(f) != 3 {
		return JudgmentEvent{}, false
	}
	p, err1 := strconv.ParseInt(f[1], 10, 64)
	i, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return JudgmentEvent{}, false
	}
	return JudgmentEvent{Origin: f[0], ProjectID: p, ItemID: i}, true
}
