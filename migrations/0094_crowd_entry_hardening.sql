-- Crowd entry hardening (issue 29).
--
-- The start page's form token is one-time: the SHA-256 of every token
-- used is kept (for two hours, longer than the form cookie lives), and a
-- second POST with the same token is refused.
CREATE TABLE crowd_entry_forms (
    token_hash bytea PRIMARY KEY,
    used_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crowd_entry_forms_used_at ON crowd_entry_forms (used_at);

-- A participant account without a bound browser (made before binding
-- existed, migration 0060) is no longer bound by whichever browser enters
-- first: an admin releases it (PATCH /api/admin/users/:id
-- {"crowd_rebind": true}), and the next entry binds its browser.
ALTER TABLE users ADD COLUMN crowd_rebind boolean NOT NULL DEFAULT false;
