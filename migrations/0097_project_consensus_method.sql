-- The project's consensus method (issue 25): how votes become the
-- consensus qrels of its exports when a download names none
-- (?consensus=, --consensus): the majority (the default, as before) or
-- Dawid–Skene. Set with the quality settings on the dashboard.
ALTER TABLE projects ADD COLUMN consensus_method text NOT NULL DEFAULT 'majority'
    CONSTRAINT projects_consensus_method_check CHECK (consensus_method IN ('majority', 'dawid-skene'));
