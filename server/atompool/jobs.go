package atompool

import (
	"context"
	"encoding/json"
	"log/slog"

	"boolpool/server/pooling"
	"boolpool/server/store"
)

// Pools are a store's atoms pools as the pool and atoms-batch jobs
// use them (jobs.AtomsPools): Publish is Publish, Grow is Grow with
// the job's parameters.
type Pools struct {
	st  *store.Store
	log *slog.Logger
}

// NewPools returns the atoms pools of st.
func NewPools(st *store.Store, log *slog.Logger) Pools { return Pools{st: st, log: log} }

// Publish checks spec, saves and publishes the pool and creates its first
// batch (Publish).
func (p Pools) Publish(ctx context.Context, projectID int64, spec pooling.Spec, by int64, goldRate float64) (pooling.Report, int, error) {
	return Publish(ctx, p.st, projectID, spec, by, goldRate, p.log)
}

// CheckGrow checks an atoms-batch job's parameters (ParseJobParams).
func (p Pools) CheckGrow(params json.RawMessage) error {
	_, err := ParseJobParams(params)
	return err
}

// Grow runs an atoms-batch job: the next batch, if due (Grow).
func (p Pools) Grow(ctx context.Context, projectID int64, params json.RawMessage) (any, error) {
	jp, err := ParseJobParams(params)
	if err != nil {
		return nil, err
	}
	res, err := Grow(ctx, p.st, projectID, jp, p.log)
	if err != nil {
		return nil, err
	}
	return res, nil
}
