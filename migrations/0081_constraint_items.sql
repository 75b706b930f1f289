-- 0081: constraint judgments as a task kind (issue 13). A constraint item
-- asks "does this document satisfy <atom>?" (yes / no / unsure, with
-- supporting or counter sentences). It lives in items / assignments /
-- judgments like every other kind, so leases, r raters and gold items are
-- the same machinery; atom_id names the shared atom, query_id one query
-- that uses it (the task view shows that query for context), and the
-- consensus of its judgments is written to atom_labels (source
-- 'consensus'), from which the query qrels are derived.
ALTER TABLE items DROP CONSTRAINT items_kind_check;
ALTER TABLE items ADD CONSTRAINT items_kind_check CHECK (kind IN ('relevance', 'paraphrase', 'validation', 'constraint'));
ALTER TABLE judgments DROP CONSTRAINT judgments_kind_check;
ALTER TABLE judgments ADD CONSTRAINT judgments_kind_check CHECK (kind IN ('relevance', 'paraphrase', 'validation', 'constraint'));

-- A merged-away atom leaves its items (and their judgments) in place.
ALTER TABLE items ADD COLUMN atom_id bigint REFERENCES atoms ON DELETE SET NULL;
ALTER TABLE items ADD CONSTRAINT items_constraint_atom CHECK (kind <> 'constraint' OR document_id IS NOT NULL);
CREATE UNIQUE INDEX items_constraint_unique ON items (project_id, atom_id, document_id) WHERE kind = 'constraint';
