package app

import (
	"context"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/judging"
	"boolpool/server/pooling"
)

// holdObserver is the judgment observer of a test server
// (Options.TestHoldAfterJudgment): it waits after each judgment's commit
// before passing it on to the consensus, so that a crash test can kill
// the process inside the window between the two.
type holdObserver struct {
	cons *consensus.Service
	hold time.Duration
}

// judgmentObserver is what judging tells of every stored judgment: the
// consensus service, or a holdObserver in front of it.
type judgmentObserver interface {
	judging.Observer
	judging.ConstraintObserver
}

var _ judgmentObserver = holdObserver{}

func (h holdObserver) JudgmentSaved(ctx context.Context, projectID, itemID int64) {
	time.Sleep(h.hold)
	h.cons.JudgmentSaved(ctx, projectID, itemID)
}

func (h holdObserver) ConstraintJudged(ctx context.Context, projectID, itemID int64) {
	time.Sleep(h.hold)
	h.cons.ConstraintJudged(ctx, projectID, itemID)
}

// calListener tells the cal pools' trigger of every refreshed consensus: a
// burst's items with one read of the due queries.
type calListener struct{ t *pooling.CALTrigger }

var _ consensus.BatchListener = calListener{}

func (l calListener) ConsensusChanged(ctx context.Context, projectID, itemID int64, _ consensus.Refreshed) {
	l.t.ItemChanged(ctx, projectID, itemID)
}

func (l calListener) ConsensusChangedMany(ctx context.Context, changes []consensus.Change) {
	ids := make([]int64, len(changes))
	for i, c := range changes {
		ids[i] = c.ItemID
	}
	l.t.ItemsChanged(ctx, ids)
}
