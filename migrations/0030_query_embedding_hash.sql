-- Encoding storage (issue 3, item 6).
--
-- query_embeddings gains the hash of the text each vector was computed from
-- (sha256 of the whole query text, or of the atom text), so that
-- `boolpool encode` re-embeds only query texts that changed, as it does for
-- documents with documents.content_hash. NULL (rows written before this
-- column existed) counts as stale.
ALTER TABLE query_embeddings ADD COLUMN IF NOT EXISTS text_hash bytea;
