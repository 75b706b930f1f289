-- Runs are stored as one row per (run, query) holding the ranking in
-- parallel arrays, instead of one row per ranked document: a 238-query ×
-- 1000-document run is 238 rows, each checked once against its foreign keys
-- and indexed once, rather than 238,000 rows each paying two foreign-key
-- checks and two b-tree insertions (storing took 10–20× the retrieval).
CREATE TABLE run_rankings (
    run_id      bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    doc_ext_ids text[] NOT NULL,
    ranks       int[] NOT NULL,
    scores      double precision[] NOT NULL,
    PRIMARY KEY (run_id, query_id),
    CHECK (cardinality(doc_ext_ids) = cardinality(ranks) AND cardinality(ranks) = cardinality(scores))
);

INSERT INTO run_rankings (run_id, query_id, doc_ext_ids, ranks, scores)
SELECT run_id, query_id,
       array_agg(doc_ext_id ORDER BY rank, doc_ext_id),
       array_agg(rank ORDER BY rank, doc_ext_id),
       array_agg(score ORDER BY rank, doc_ext_id)
FROM run_results GROUP BY run_id, query_id;

DROP TABLE run_results;

-- The old one-row-per-result shape, for reading (rank order within a query).
CREATE VIEW run_results AS
SELECT r.run_id, r.query_id, u.doc_ext_id, u.rank, u.score
FROM run_rankings r, unnest(r.doc_ext_ids, r.ranks, r.scores) AS u(doc_ext_id, rank, score);
