-- 0071: the one definition of a rater's current judgment (issue 16).
-- A judgment counts while it is its rater's latest judgment of the item and
-- not a skip: a later judgment supersedes it, and a later skip withdraws the
-- rater's vote (it does not fall back to an earlier judgment). Consensus,
-- the live dashboards, the gold record and the judged export all read this
-- view; each adds its own conditions (relevance IS NOT NULL, the project,
-- the item kind, the rater).
--
-- The item's project and kind are in the DISTINCT ON list, although they
-- follow from item_id and change nothing in which row is kept: conditions
-- on DISTINCT ON columns are pushed down into the view, so a query for one
-- project (or one item, or one rater) reads only that project's judgments.
-- The columns are listed, not j.*: a column added to judgments later is
-- added here by the migration that adds it.
CREATE VIEW current_judgments AS
SELECT * FROM (
    SELECT DISTINCT ON (i.project_id, i.kind, j.item_id, j.user_id)
        j.id, j.client_id, j.item_id, j.user_id, j.kind, j.relevance, j.evidence, j.attributions,
        j.payload, j.contradiction, j.comment, j.skip_reason, j.time_spent_ms, j.supersedes, j.created_at,
        i.project_id, i.kind AS item_kind, i.query_id, i.document_id
    FROM judgments j JOIN items i ON i.id = j.item_id
    ORDER BY i.project_id, i.kind, j.item_id, j.user_id, j.id DESC
) latest
WHERE skip_reason = '';
