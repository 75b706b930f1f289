-- Background jobs (issue 6): encoder and retrieval runs started from the
-- researchers' setup page. A row is the job's whole state, so a restarted
-- server can list what ran before it; rows still queued or running when a
-- server starts belonged to a process that stopped and are marked
-- interrupted.
CREATE TABLE jobs (
    id           bigserial PRIMARY KEY,
    project_id   bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    kind         text NOT NULL,
    params       jsonb NOT NULL DEFAULT '{}',
    state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'running', 'done', 'failed', 'interrupted', 'cancelled')),
    phase        text NOT NULL DEFAULT '',
    done         bigint NOT NULL DEFAULT 0,
    total        bigint NOT NULL DEFAULT 0,
    rate         double precision NOT NULL DEFAULT 0,  -- units per second in the current phase
    error        text NOT NULL DEFAULT '',
    result       jsonb,
    created_by   bigint REFERENCES users ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);

CREATE INDEX jobs_project_idx ON jobs (project_id, id DESC);
CREATE INDEX jobs_unfinished_idx ON jobs (state) WHERE state IN ('queued', 'running');
