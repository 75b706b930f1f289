-- Retrieval and pooling (issue 4).

-- The lexical (BM25) index of a project, derived from its documents and
-- persisted here so that stateless servers share it. fingerprint is a hash
-- of every (ext_id, content_hash) pair: a different value means the index
-- is stale and `boolpool index` (or the next retrieval) rebuilds it.
CREATE TABLE lexical_indexes (
    project_id   bigint PRIMARY KEY REFERENCES projects ON DELETE CASCADE,
    fingerprint  text NOT NULL,
    n_docs       int NOT NULL,
    n_terms      int NOT NULL,
    params       jsonb NOT NULL DEFAULT '{}',
    data         bytea NOT NULL,
    built_at     timestamptz NOT NULL DEFAULT now()
);
-- The blob is already compact (delta varints): skip TOAST compression.
ALTER TABLE lexical_indexes ALTER COLUMN data SET STORAGE EXTERNAL;

-- A pool's per-query summary is derived from pool_items; keep item lookups
-- by query fast.
CREATE INDEX pool_items_query ON pool_items (pool_id, query_id, priority);
