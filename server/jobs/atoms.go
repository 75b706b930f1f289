package jobs

import (
	"context"
	"encoding/json"

	"boolpool/server/pooling"
)

// AtomsPools publish and grow atoms pools (server/atompool's Pools
// in production): the pool job publishes one (strategy atoms), the
// atoms-batch job adds its next batch. They come in as a value because
// atompool listens to consensus and so sits above this package, which the
// HTTP layer imports to submit jobs.
type AtomsPools interface {
	// Publish checks spec, saves and publishes the pool and creates its
	// first batch: the pool's report and the constraint items created.
	Publish(ctx context.Context, projectID int64, spec pooling.Spec, by int64, goldRate float64) (pooling.Report, int, error)
	// CheckGrow checks an atoms-batch job's parameters.
	CheckGrow(params json.RawMessage) error
	// Grow adds the next batch the parameters ask for (the job's result).
	Grow(ctx context.Context, projectID int64, params json.RawMessage) (any, error)
}

// AtomsBatch is the job kind that grows a atoms pool
// (pooling.AtomsJobKind): its next batch of constraint items once every
// item of the current batch has a label. Queued by atompool.AtomsTrigger
// with the pool's item count, so it is unique per batch; a repeated or
// early job does nothing, and a retry adds nothing twice (an (atom,
// document) pair has one constraint item).
func AtomsBatch(pools AtomsPools) Kind {
	return Kind{
		Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			return pools.CheckGrow(raw)
		},
		Run: func(ctx context.Context, a Attempt) (any, error) {
			if err := pools.CheckGrow(a.Job.Params); err != nil {
				return nil, err
			}
			a.Report("choosing the next batch", 0, 1)
			res, err := pools.Grow(ctx, a.Job.ProjectID, a.Job.Params)
			if err != nil {
				return nil, err
			}
			a.Report("done", 1, 1)
			return res, nil
		},
	}
}
