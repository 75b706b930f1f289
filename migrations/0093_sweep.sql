-- The sweep (issue 29) re-derives the due batches of live cal and atoms
-- pools from the database when a server or worker starts and every 15 s:
-- a batch is due unless a job with its exact parameters was ever queued.
-- This index answers that lookup without reading every job of a project.
-- Partial: only these two kinds, whose parameters are a few small numbers
-- (a btree entry must stay under a page's third).
CREATE INDEX jobs_batch_params_idx ON jobs (project_id, kind, params)
    WHERE kind IN ('cal-batch', 'atoms-batch');

-- When a sweep last ran, across every server and worker on the database: a
-- periodic sweep is skipped when another process swept within its period,
-- so the cost stays one sweep per period however many processes run.
CREATE TABLE sweep_state (
    id       int PRIMARY KEY CHECK (id = 1),
    swept_at timestamptz NOT NULL
);
