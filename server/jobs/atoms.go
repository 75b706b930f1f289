package jobs

import (
	"context"
	"encoding/json"
	"log/slog"

	"boolpool/server/atompool"
	"boolpool/server/store"
)

// AtomsBatch is the job kind that grows a live atoms pool
// (pooling.AtomsJobKind): its next batch of constraint items once every
// item of the current batch has a label. Queued by atompool.AtomsTrigger
// with the pool's item count, so it is unique per batch; a repeated or
// early job does nothing, and a retry adds nothing twice (an (atom,
// document) pair has one constraint item).
func AtomsBatch(st *store.Store, log *slog.Logger) Kind {
	return Kind{
		Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			_, err := atompool.ParseJobParams(raw)
			return err
		},
		Run: func(ctx context.Context, a Attempt) (any, error) {
			p, err := atompool.ParseJobParams(a.Job.Params)
			if err != nil {
				return nil, err
			}
			a.Report("choosing the next batch", 0, 1)
			res, err := atompool.Grow(ctx, st, a.Job.ProjectID, p, log)
			if err != nil {
				return nil, err
			}
			a.Report("done", 1, 1)
			return res, nil
		},
	}
}
