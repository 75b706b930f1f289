-- 0101: a lexical index is stored in ordered chunks (issue 27, the
-- 8.8M-document run).
--
-- lexical_indexes.data held the whole encoded index as one bytea: 134 MB
-- at 1M documents, about 1.2 GB at 8.8M, past PostgreSQL's 1 GB limit on
-- one value (and on one bind message), so the save failed. The encoded
-- bytes now live in lexical_index_chunks, in seq order from 0, each chunk
-- at most the store's chunk size (32 MiB); SaveLexicalIndex replaces a
-- project's row and all its chunks in one transaction, so a reader sees
-- either the old index or the new one. n_bytes is the sum of the chunks'
-- lengths (a reader checks it). Deleting a project deletes its
-- lexical_indexes row (0010) and that row its chunks.
CREATE TABLE lexical_index_chunks (
    project_id  bigint NOT NULL REFERENCES lexical_indexes ON DELETE CASCADE,
    seq         int NOT NULL CHECK (seq >= 0),
    data        bytea NOT NULL,
    PRIMARY KEY (project_id, seq)
);
-- The chunks are already compact (delta varints): skip TOAST compression.
ALTER TABLE lexical_index_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

ALTER TABLE lexical_indexes ADD COLUMN n_bytes bigint NOT NULL DEFAULT 0;
-- An index saved before 0101 becomes its own chunk 0.
INSERT INTO lexical_index_chunks (project_id, seq, data)
    SELECT project_id, 0, data FROM lexical_indexes;
UPDATE lexical_indexes SET n_bytes = octet_length(data);
ALTER TABLE lexical_indexes ALTER COLUMN n_bytes DROP DEFAULT;
ALTER TABLE lexical_indexes DROP COLUMN data;
