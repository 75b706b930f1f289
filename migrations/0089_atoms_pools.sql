-- Live constraint pooling (issue 13): a pool with strategy 'atoms' publishes
-- constraint items (items.kind = 'constraint', items.pool_id = the pool) in
-- batches chosen by server/atompool, the next batch once the current one is
-- labelled.
ALTER TABLE pools DROP CONSTRAINT pools_strategy_check,
    ADD CONSTRAINT pools_strategy_check CHECK (strategy IN ('depth', 'mtf', 'bandit', 'cal', 'atoms'));
