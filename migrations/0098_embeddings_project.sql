-- Per-project HNSW indexes (issue 27): each dense vector carries its
-- document's project, so that an encoder's HNSW index is one partial index
-- per project (WHERE encoder_id = E AND project_id = P, built by the store
-- in half precision) and a new project's bulk load builds its own graph
-- instead of rebuilding one that spans every project. The store fills
-- project_id from the documents table when it writes a vector (documents
-- never move between projects).
ALTER TABLE embeddings ADD COLUMN project_id bigint;
UPDATE embeddings e SET project_id = d.project_id FROM documents d WHERE d.id = e.document_id;
ALTER TABLE embeddings ALTER COLUMN project_id SET NOT NULL;

-- The per-encoder indexes spanning every project are replaced: the next
-- encode run (or `boolpool index --encoder`, or the first pgvector search
-- through the app) builds the project's own; kNN queries scan exactly
-- meanwhile.
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexname FROM pg_indexes
        WHERE schemaname = current_schema() AND tablename = 'embeddings' AND indexname ~ '^embeddings_hnsw_e[0-9]+$'
    LOOP
        EXECUTE format('DROP INDEX %I', r.indexname);
    END LOOP;
END $$;
