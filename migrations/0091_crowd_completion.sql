-- Crowd completion (issue 25): a study is done for a participant when they
-- reach the project's quota (items judged or active minutes; 0 = none),
-- and they are then shown the completion code (projects.completion_code,
-- from 0001) and sent back to the crowd platform's completion URL.
-- users.crowd_completed_at records when a participant was first told they
-- were done (for the payment table).
ALTER TABLE projects
    ADD COLUMN crowd_completion_url text NOT NULL DEFAULT ''
        CHECK (length(crowd_completion_url) <= 2048),
    ADD COLUMN crowd_quota_items    int  NOT NULL DEFAULT 0
        CHECK (crowd_quota_items BETWEEN 0 AND 1000000),
    ADD COLUMN crowd_quota_minutes  int  NOT NULL DEFAULT 0
        CHECK (crowd_quota_minutes BETWEEN 0 AND 100000),
    ADD CONSTRAINT projects_completion_code_length CHECK (length(completion_code) <= 200);

ALTER TABLE users
    ADD COLUMN crowd_completed_at timestamptz;
