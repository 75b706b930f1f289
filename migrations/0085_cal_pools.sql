-- Live continuous active learning (issue 12): where each pool item came
-- from, and the state of every query of a pool with strategy 'cal'.
--
-- origin: 'runs' (the top depth of a chosen run holds it; every item of a
-- run pool) or 'cal' (found by active learning alone); round: the batch of
-- a cal pool that served it (0 = the first batch; 0 for run pools).
ALTER TABLE pools DROP CONSTRAINT pools_strategy_check,
    ADD CONSTRAINT pools_strategy_check CHECK (strategy IN ('depth', 'mtf', 'bandit', 'cal'));

ALTER TABLE pool_items
    ADD COLUMN origin text NOT NULL DEFAULT 'runs' CHECK (origin IN ('runs', 'cal')),
    ADD COLUMN round  int  NOT NULL DEFAULT 0 CHECK (round >= 0);

-- One row per (cal pool, query): the last batch served (round, its size),
-- whether the review goes on ('active') or has ended ('stopped', with the
-- reason: the stopping rule, a researcher, the cap, the corpus exhausted),
-- and extend_to: the stopping rule does not fire before the review has
-- this many judgments (a researcher's extension).
CREATE TABLE cal_queries (
    pool_id     bigint NOT NULL REFERENCES pools ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    round       int NOT NULL DEFAULT 0 CHECK (round >= 0),
    batch_size  int NOT NULL CHECK (batch_size >= 1),
    state       text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'stopped')),
    reason      text NOT NULL DEFAULT '',
    extend_to   int NOT NULL DEFAULT 0 CHECK (extend_to >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pool_id, query_id)
);
CREATE INDEX cal_queries_active ON cal_queries (query_id) WHERE state = 'active';
