package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/web/api"
)

// Job states: the names the job runner uses for the states defined once,
// with their values, in web/api (the setup page shows them).
const (
	JobQueued      = api.JobQueued
	JobRunning     = api.JobRunning
	JobDone        = api.JobDone
	JobFailed      = api.JobFailed
	JobInterrupted = api.JobInterrupted
	JobCancelled   = api.JobCancelled
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
	return api.JobFinished(j.State)
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

// CreateJob stores a queued job (and an audit row).
func (s *Store) CreateJob(ctx context.Context, n NewJob) (Job, error) {
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
		return audit(ctx, tx, n.CreatedBy, n.ProjectID, "job.create", "job", fmt.Sprint(j.ID), map[string]any{"kind": n.Kind, "params": params})
	})
	return j, err
}

// JobByID looks a job up.
func (s *Store) JobByID(ctx context.Context, id int64) (Job, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = $1`, id)
	j, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Job])
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, fmt.Errorf("store: job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("store: job %d: %w", id, err)
	}
	return j, nil
}

// ListJobs returns a project's most recent jobs, newest first.
func (s *Store) ListJobs(ctx context.Context, projectID int64, limit int) ([]Job, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+jobCols+` FROM jobs WHERE project_id = $1 ORDER BY id DESC LIMIT $2`, projectID, limit)
	js, err := pgx.CollectRows(rows, pgx.RowToStructByName[Job])
	if err != nil {
		return nil, fmt.Errorf("store: list jobs: %w", err)
	}
	return js, nil
}

// StartJob moves a queued job to running. It reports false when the job
// is no longer queued (cancelled meanwhile).
func (s *Store) StartJob(ctx context.Context, id int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = 'running', started_at = now(), updated_at = now()
		WHERE id = $1 AND state = 'queued'`, id)
	if err != nil {
		return false, fmt.Errorf("store: start job %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
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
// already final is left as it is.
func (s *Store) FinishJob(ctx context.Context, id int64, state, errMsg string, result json.RawMessage) error {
	if state != JobDone && state != JobFailed && state != JobInterrupted && state != JobCancelled {
		return fmt.Errorf("store: finish job %d: %q is not a final state", id, state)
	}
	_, err := s.pool.Exec(ctx, `UPDATE jobs SET state = $2, error = $3, result = $4, updated_at = now(), finished_at = now()
		WHERE id = $1 AND state IN ('queued', 'running')`, id, state, errMsg, result)
	if err != nil {
		return fmt.Errorf("store: finish job %d: %w", id, err)
	}
	return nil
}

// InterruptUnfinishedJobs marks every queued or running job interrupted:
// called when a server starts, these belonged to a process that stopped.
// It returns how many there were.
func (s *Store) InterruptUnfinishedJobs(ctx context.Context, reason string) (int64, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = 'interrupted', error = $1, updated_at = now(), finished_at = now()
		WHERE state IN ('queued', 'running')`, reason)
	if err != nil {
		return 0, fmt.Errorf("store: interrupt unfinished jobs: %w", err)
	}
	return tag.RowsAffected(), nil
}
