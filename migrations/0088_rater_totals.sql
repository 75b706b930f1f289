-- Each rater's progress total held while they work (issue 17), kept in the
-- database so that every server behind a balancer shows the same bar
-- (issue 15): one row per (project, rater, kind), touched by their queue
-- requests; a row idle longer than the hold is counted again.
CREATE TABLE rater_totals (
    project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text        NOT NULL,
    total      integer     NOT NULL,
    used_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id, kind)
);
