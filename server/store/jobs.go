package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/vocab"
)

// Job is one background job (an encoder or retrieval run) and its state.
type Job struct {
	ID         int64           `db:"id"`
	ProjectID  int64           `db:"project_id"`
	Kind       string          `db:"kind"`
	Params     json.RawMessage `db:"params"`
	State      string          `db:"state"`
	Phase      string          `db:"phase"`
	Done       int64           `db:"done"`
	Total      int64           `db:"total"`
	Rate       float64         `db:"rate"`
	Error      string          `db:"error"`
	Result     json.RawMessage `db:"result"`
	CreatedBy  *int64          `db:"created_by"`
	CreatedAt  time.Time       `db:"created_at"`
	StartedAt  *time.Time      `db:"started_at"`
	UpdatedAt  time.Time       `db:"updated_at"`
	FinishedAt *time.Time      `db:"finished_at"`
}

// Finished reports whether the job reached a final state.
func (j Job) Finished() bool {
	return vocab.JobFinished(j.State)
}

const jobCols = `id, project_id, kind, params, state, phase, done, total, rate, error, result, created_by,
	created_at, started_at, updated_at, finished_at`

// NewJob is the input of CreateJob.
type NewJob struct {
	ProjectID int64
	Kind      string
	Params    json.RawMessage
	CreatedBy int64 // 0 = system
}

// CreateJob stores a queued job (and an audit row). enqueue, when not nil,
// runs in the same transaction with the new row, so that the row and the
// job queue's entry are written together or not at all; its error rolls
// both back and is returned as is.
func (s *Store) CreateJob(ctx context.Context, n NewJob, enqueue func(ctx context.Context, tx pgx.Tx, j Job) error) (Job, error) {
	params := n.Params
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	var by *int64
	if n.CreatedBy != 0 {
		by = &n.CreatedBy
	}
	var j Job
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `INSERT INTO jobs (project_id, kind, params, created_by) VALUES ($1, $2, $3, $4)
			RETURNING `+jobCols, n.ProjectID, n.Kind, params, by)
		var err error
		if j, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Job]); err != nil {
			return fmt.Errorf("store: create job: %w", err)
		}
		if err := audit(ctx, tx, n.CreatedBy, n.ProjectID, "job.create", "job", fmt.Sprint(j.ID), map[string]any{"kind": n.Kind, "params": params}); err != nil {
			return err
		}
		if enqueue != nil {
			return enqueue(ctx, tx, j)
		}
		return nil
	})
	return j, err
}

// WaitingJobs counts a project's jobs still waiting to start (state
// queued), except the job except, within tx and under a transaction lock
// per project, so concurrent submissions of a project count one another.
func WaitingJobs(ctx context.Context, tx pgx.Tx, projectID, except int64) (int, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, `+lockKey+`)`, lockJobsProject, projectID); err != nil {
		return 0, fmt.Errorf("store: waiting jobs: %w", err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE project_id = $1 AND state = 'queued' AND id <> $2`, projectID, except).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: waiting jobs: %w", err)
	}
	return n, nil
}

// JobByID looks a job up.
func (s *Store) JobByID(ctx context.Context, id int64) (Job, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = $1`, id)
	return collectOne[Job](rows, fmt.Sprintf("job %d", id))
}

// ListJobs returns a project's most recent jobs, newest first.
func (s *Store) ListJobs(ctx context.Context, projectID int64, limit int) ([]Job, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+jobCols+` FROM jobs WHERE project_id = $1 ORDER BY id DESC LIMIT $2`, projectID, limit)
	return collectAll[Job](rows, "list jobs")
}

// StartJob moves a queued job to running and returns it. A job found
// running is taken over as it is (its earlier attempt's worker stopped or
// was killed): the progress it wrote stays until the new attempt reports.
// It reports false when the job is already final (a user cancelled it).
func (s *Store) StartJob(ctx context.Context, id int64) (Job, bool, error) {
	rows, _ := s.pool.Query(ctx, `UPDATE jobs SET state = 'running', started_at = coalesce(started_at, now()), updated_at = now()
		WHERE id = $1 AND state IN ('queued', 'running') RETURNING `+jobCols, id)
	j, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Job])
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("store: start job %d: %w", id, err)
	}
	return j, true, nil
}

// RequeueJob moves a running job back to queued, with a message saying why
// (an attempt failed and is retried; the worker stopped): the job queue
// runs it again. A final job is left as it is.
func (s *Store) RequeueJob(ctx context.Context, id int64, msg string) error {
	_, err := s.pool.Exec(ctx, `UPDATE jobs SET state = 'queued', error = $2, rate = 0, updated_at = now()
		WHERE id = $1 AND state IN ('queued', 'running')`, id, msg)
	if err != nil {
		return fmt.Errorf("store: requeue job %d: %w", id, err)
	}
	return nil
}

// SetJobProgress records a running job's phase, done/total and rate
// (units per second in the phase).
func (s *Store) SetJobProgress(ctx context.Context, id int64, phase string, done, total int64, rate float64) error {
	_, err := s.pool.Exec(ctx, `UPDATE jobs SET phase = $2, done = $3, total = $4, rate = $5, updated_at = now()
		WHERE id = $1 AND state = 'running'`, id, phase, done, total, rate)
	if err != nil {
		return fmt.Errorf("store: job %d progress: %w", id, err)
	}
	return nil
}

// FinishJob records a job's final state, error message and result. A job
// already final is left as it is; FinishJob reports whether it changed the
// row.
func (s *Store) FinishJob(ctx context.Context, id int64, state, errMsg string, result json.RawMessage) (bool, error) {
	if state != vocab.JobDone && state != vocab.JobFailed && state != vocab.JobInterrupted && state != vocab.JobCancelled {
		return false, fmt.Errorf("store: finish job %d: %q is not a final state", id, state)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = $2, error = $3, result = $4, updated_at = now(), finished_at = now()
		WHERE id = $1 AND state IN ('queued', 'running')`, id, state, errMsg, result)
	if err != nil {
		return false, fmt.Errorf("store: finish job %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// The job queue (River, server/jobs) keeps its own rows in river_job; a
// River job's args carry the id of its jobs row as job_id.

// QueueJobID returns the id of the job queue's entry for the jobs row id
// (ErrNotFound when there is none, e.g. River removed it after its
// retention period).
func (s *Store) QueueJobID(ctx context.Context, jobID int64) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM river_job WHERE args @> jsonb_build_object('job_id', $1::bigint)
		ORDER BY id DESC LIMIT 1`, jobID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("store: queue entry of job %d: %w", jobID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: queue entry of job %d: %w", jobID, err)
	}
	return id, nil
}

// TouchQueueJob is a running queue entry's heartbeat: it moves the entry's
// attempted_at to now, the time River's rescuer measures a running job's
// age from. A worker that is alive touches its jobs well within River's
// RescueStuckJobsAfter, so only the jobs of a worker that died (killed,
// machine lost) are rescued and retried, however long a job runs.
func (s *Store) TouchQueueJob(ctx context.Context, queueID int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE river_job SET attempted_at = now() WHERE id = $1 AND state = 'running'`, queueID)
	if err != nil {
		return fmt.Errorf("store: touch queue job %d: %w", queueID, err)
	}
	return nil
}
