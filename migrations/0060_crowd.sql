-- Crowd entry (issue 11): off by default, enabled per project by a
-- researcher, behind an unguessable per-project key. A participant id is
-- bound to its project and, on first entry, to a random token kept in an
-- HttpOnly cookie (only its SHA-256 is stored), so entering with another
-- participant's id never reaches their work.
ALTER TABLE projects
    ADD COLUMN crowd_enabled          boolean NOT NULL DEFAULT false,
    ADD COLUMN crowd_key              text    NOT NULL DEFAULT '',
    ADD COLUMN crowd_max_participants int     NOT NULL DEFAULT 0 CHECK (crowd_max_participants >= 0);

ALTER TABLE users
    ADD COLUMN crowd_project_id bigint REFERENCES projects ON DELETE CASCADE,
    ADD COLUMN crowd_token_hash bytea;

-- Crowd accounts made before this migration: external_id is "<project>/<participant>".
UPDATE users u SET crowd_project_id = p.id
FROM projects p
WHERE u.external_id IS NOT NULL AND u.external_id LIKE p.name || '/%';

CREATE INDEX users_crowd_project ON users (crowd_project_id) WHERE crowd_project_id IS NOT NULL;
