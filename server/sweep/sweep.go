// Package sweep is the crash repair of issue 29: it re-derives from the
// database the follow-up of judgments that a killed process lost — the
// consensus refresh, the atom labels, the next batches of cal and
// atoms pools — when a server or worker starts and periodically.
// server/app builds and starts one Sweeper per process.
package sweep

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"boolpool/server/atompool"
	"boolpool/server/consensus"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// DefaultEvery is how often a server or worker sweeps (app.Options.SweepEvery).
const DefaultEvery = 15 * time.Second

// calSettle is how old the last judgment of a due cal batch must be before
// a periodic sweep queues it: until then the batch is its trigger's, which
// runs once the consensus worker has refreshed the judgment.
const calSettle = 5 * time.Second

// The sweep (issue 29). A judgment's follow-up — its consensus refresh,
// then the cal trigger (a fully judged batch of a cal pool queues the
// next) and, for a constraint judgment, the atom label and the atoms
// trigger — runs in memory after the judgment commits. A process killed
// in that window used to leave the query "waiting for its next batch" for
// ever. The sweep derives the same work from the database:
//
//   - when a server or worker starts (the full sweep): every project's
//     consensus and constraint labels are repaired (consensus.Repair, what
//     exports did on their own before), then the due batches are queued;
//   - every period (app.Options.SweepEvery): the due batches are queued —
//     the active queries of published cal pools whose batch is fully
//     judged and for which no cal-batch job of the next round was ever queued
//     (store.CALDue; their project's consensus is brought up to date first,
//     so that the batch learns from every label; a periodic sweep leaves a
//     batch judged within calSettle to its trigger), and the published atoms
//     pools whose items are all labelled with no atoms-batch job of their
//     item count (store.AtomPoolsDue), after writing the labels of answered
//     constraint items that have none.
//
// Several servers and workers on one database: one sweep at a time holds
// an advisory lock (the periodic sweep skips when another process holds
// it or swept within half the period, table sweep_state; the full one
// waits), and the jobs are unique in River (a job equal to one queued or
// running is not queued again).
type Sweeper struct {
	st    *store.Store
	cal   *pooling.CALTrigger
	atoms *atompool.AtomsTrigger
	log   *slog.Logger
	every time.Duration // the period

	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a sweeper that queues the due batches through the triggers
// of the cal and atoms pools, every period (0: DefaultEvery) once
// started.
func New(st *store.Store, cal *pooling.CALTrigger, atoms *atompool.AtomsTrigger, log *slog.Logger, every time.Duration) *Sweeper {
	if every <= 0 {
		every = DefaultEvery
	}
	return &Sweeper{st: st, cal: cal, atoms: atoms, log: log, every: every}
}

// Result says what one sweep did.
type Result struct {
	// Ran is false when another process was sweeping (a periodic sweep
	// then does nothing).
	Ran         bool
	Consensus   int // relevance consensus rows repaired
	Labels      int // atom labels of constraint items repaired
	CALQueued   int // cal-batch jobs queued (or found queued)
	AtomsQueued int // atoms-batch jobs queued (or found queued)
}

func (r Result) did() bool {
	return r.Consensus+r.Labels+r.CALQueued+r.AtomsQueued > 0
}

// Start runs the full sweep, then one every period, in a goroutine that
// Close stops.
func (s *Sweeper) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		s.logged(ctx, true)
		t := time.NewTicker(s.every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.logged(ctx, false)
			}
		}
	}()
}

// Close stops the sweeps and waits for the one running.
func (s *Sweeper) Close() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
}

func (s *Sweeper) logged(ctx context.Context, full bool) {
	start := time.Now()
	// A periodic sweep is skipped when any process swept within half the
	// period: one process sweeps per period, however many run.
	res, err := s.sweep(ctx, full, s.every/2)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Error("sweep", "full", full, "err", err)
	case res.did():
		s.log.Info("sweep: re-derived lost work", "full", full, "consensus_rows", res.Consensus, "atom_labels", res.Labels,
			"cal_batches", res.CALQueued, "atoms_batches", res.AtomsQueued, "took", time.Since(start).Round(time.Millisecond))
	default:
		s.log.Debug("sweep: nothing lost", "full", full, "ran", res.Ran, "took", time.Since(start).Round(time.Millisecond))
	}
}

// sweep runs one sweep (full: the start-up one, with every project's
// repair, which waits for another process's sweep to end; otherwise none
// runs when another process is sweeping or swept within skipWithin). It
// goes on past a failing project or batch and returns the errors joined.
func (s *Sweeper) sweep(ctx context.Context, full bool, skipWithin time.Duration) (Result, error) {
	var res Result
	var errs []error
	if full {
		skipWithin = 0
	}
	ran, err := s.st.WithSweepLock(ctx, full, skipWithin, func(ctx context.Context) error {
		// current holds, per project, the outcome of bringing its
		// consensus up to date (a cal batch of a project whose repair
		// failed would miss labels: the next sweep tries again).
		current := map[int64]error{}
		if full {
			projects, err := s.st.ProjectsWithJudgments(ctx)
			if err != nil {
				return err
			}
			for _, p := range projects {
				r, err := consensus.Repair(ctx, s.st, p)
				res.Consensus += r.Consensus
				res.Labels += r.Labels
				current[p] = err
				errs = append(errs, err)
			}
		} else {
			lost, err := s.st.UnlabelledJudgedConstraints(ctx)
			if err != nil {
				return err
			}
			for _, it := range lost {
				changed, err := consensus.RefreshConstraint(ctx, s.st, it.ItemID)
				if changed {
					res.Labels++
				}
				errs = append(errs, err)
			}
		}
		due, err := s.st.CALDue(ctx)
		if err != nil {
			return err
		}
		for _, q := range due {
			if !full {
				// A batch judged an instant ago is its trigger's (the
				// consensus worker may be behind): no project sync for it.
				recent, err := s.st.CALJudgedWithin(ctx, q, calSettle)
				if err != nil || recent {
					errs = append(errs, err)
					continue
				}
			}
			if _, ok := current[q.ProjectID]; !ok && !full {
				current[q.ProjectID] = consensus.Current(ctx, s.st, q.ProjectID)
				errs = append(errs, current[q.ProjectID])
			}
			if current[q.ProjectID] != nil {
				continue
			}
			if _, err := s.cal.Queue(ctx, q); err != nil {
				errs = append(errs, err)
				continue
			}
			res.CALQueued++
		}
		pools, err := s.st.AtomPoolsDue(ctx)
		if err != nil {
			return err
		}
		for _, p := range pools {
			if err := s.atoms.QueuePool(ctx, p.ProjectID, p.PoolID, p.Items); err != nil {
				errs = append(errs, err)
				continue
			}
			res.AtomsQueued++
		}
		return nil
	})
	res.Ran = ran
	return res, errors.Join(append(errs, err)...)
}

// Sweep runs one sweep now (full: with the start-up repair of every
// project's consensus and constraint labels, waiting for another
// process's sweep to end; otherwise it does nothing while another process
// sweeps). Start runs the sweeps by itself; this is for tests and tools.
func (s *Sweeper) Sweep(ctx context.Context, full bool) (Result, error) {
	return s.sweep(ctx, full, 0)
}
