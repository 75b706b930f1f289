package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"boolpool/server/store"
)

// Relay makes several servers on one database one audience: it passes
// every judgment stored here to the local Service and announces it to the
// other servers (Postgres NOTIFY), and hands the judgments they announce
// to the local Service (LISTEN), so that every server's live dashboards
// see every judgment. A missed event (a listener reconnecting) is repaired
// by the Service's fingerprint check on the next dashboard request.
type Relay struct {
	st     *store.Store
	local  JudgmentObserver
	origin string
	log    *slog.Logger
}

// NewRelay builds a relay in front of local with an id of its own.
func NewRelay(st *store.Store, local JudgmentObserver, log *slog.Logger) *Relay {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Relay{st: st, local: local, origin: hex.EncodeToString(b[:]), log: log}
}

// JudgmentSaved implements JudgmentObserver: the local Service first, then
// the other servers.
func (r *Relay) JudgmentSaved(ctx context.Context, projectID, itemID int64) {
	r.local.JudgmentSaved(ctx, projectID, itemID)
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.st.NotifyJudgment(nctx, store.JudgmentEvent{Origin: r.origin, ProjectID: projectID, ItemID: itemID}); err != nil {
		r.log.Warn("live: announcing a judgment to the other servers", "err", err)
	}
}

// Run listens for the other servers' judgments until ctx ends, listening
// again after a lost connection. ready, if not nil, is called each time
// the listener is in place.
func (r *Relay) Run(ctx context.Context, ready func()) {
	for ctx.Err() == nil {
		err := r.st.ListenJudgments(ctx, ready, func(e store.JudgmentEvent) {
			if e.Origin != r.origin {
				r.local.JudgmentSaved(ctx, e.ProjectID, e.ItemID)
			}
		})
		if err != nil && ctx.Err() == nil {
			r.log.Warn("live: listening for other servers' judgments; retrying in 1s", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}
