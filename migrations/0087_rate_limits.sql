-- Sign-in and crowd-entry rate limits shared by every server on the
-- database (issue 15): one row per (scope, key) holding the key's
-- theoretical arrival time (GCRA). A row whose tat has passed is the same
-- as no row and is swept.
CREATE TABLE rate_limits (
    scope text        NOT NULL,
    key   text        NOT NULL,
    tat   timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
