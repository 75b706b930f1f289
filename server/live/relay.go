package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/store"
)

// Relay makes several servers on one database one audience. It is the
// consensus service's listener in front of this server's dashboards: it
// passes every consensus this server refreshed to the local Service and
// announces the item to the other servers (Postgres NOTIFY, after the
// consensus is stored); for the items the others announce (LISTEN) it
// reads the stored consensus and hands it to the local Service, so every
// server's live dashboards see every judgment. A missed event (a listener
// reconnecting) is repaired by the Service's fingerprint check on the
// next dashboard request.
type Relay struct {
	st     *store.Store
	cons   *consensus.Service
	local  consensus.Listener
	origin string
	log    *slog.Logger
}

// NewRelay builds a relay in front of local with an id of its own; cons
// reads the consensus of the items other servers announce.
func NewRelay(st *store.Store, cons *consensus.Service, local consensus.Listener, log *slog.Logger) *Relay {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Relay{st: st, cons: cons, local: local, origin: hex.EncodeToString(b[:]), log: log}
}

var _ consensus.BatchListener = (*Relay)(nil)

// ConsensusChanged implements consensus.Listener: the local Service first,
// then the other servers.
func (r *Relay) ConsensusChanged(ctx context.Context, projectID, itemID int64, ref consensus.Refreshed) {
	r.local.ConsensusChanged(ctx, projectID, itemID, ref)
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.st.NotifyJudgment(nctx, store.JudgmentEvent{Origin: r.origin, ProjectID: projectID, ItemID: itemID}); err != nil {
		r.log.Warn("live: announcing a judgment to the other servers", "err", err)
	}
}

// ConsensusChangedMany implements consensus.BatchListener: the local
// Service item by item, then the other servers in one statement.
func (r *Relay) ConsensusChangedMany(ctx context.Context, changes []consensus.Change) {
	es := make([]store.JudgmentEvent, len(changes))
	for i, c := range changes {
		r.local.ConsensusChanged(ctx, c.ProjectID, c.ItemID, c.Ref)
		es[i] = store.JudgmentEvent{Origin: r.origin, ProjectID: c.ProjectID, ItemID: c.ItemID}
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.st.NotifyJudgments(nctx, es); err != nil {
		r.log.Warn("live: announcing judgments to the other servers", "items", len(es), "err", err)
	}
}

// Run listens for the other servers' judgments until ctx ends, listening
// again after a lost connection. ready, if not nil, is called each time
// the listener is in place.
func (r *Relay) Run(ctx context.Context, ready func()) {
	for ctx.Err() == nil {
		err := r.st.ListenJudgments(ctx, ready, func(e store.JudgmentEvent) {
			if e.Origin == r.origin {
				return
			}
			// The announcing server stored this consensus before it
			// announced it: recomputing it here changes nothing and gives
			// the votes the dashboards apply.
			ref, err := r.cons.Refresh(ctx, e.ItemID)
			if err != nil {
				r.log.Warn("live: reading another server's judgment", "item", e.ItemID, "err", err)
				return
			}
			r.local.ConsensusChanged(ctx, e.ProjectID, e.ItemID, ref)
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
