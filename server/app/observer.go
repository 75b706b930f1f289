package app

import (
	"context"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/judging"
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
