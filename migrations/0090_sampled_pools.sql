-- Sampled pools (issue 24): a pool with strategy 'sample' is a stratified
-- sample (statAP / infAP designs: Aslam, Pavlu & Yilmaz 2006; Yilmaz,
-- Kanoulas & Aslam 2008) over the union of the chosen runs' rankings, and
-- optionally a whole-corpus stratum by a proxy ranking. Each of its items
-- records its inclusion probability and its stratum; the strata of every
-- (pool, query) are in pool_strata.
--
-- pool_items.inclusion: the item's inclusion probability π in (0, 1]
-- (NULL: the pool has no sampling design); pool_items.stratum: the index of
-- its stratum in pool_strata (NULL with inclusion); origin 'sample': an
-- item a sampled pool drew (or, in its "judged before" stratum, a
-- document the project had judged already).
ALTER TABLE pools DROP CONSTRAINT pools_strategy_check,
    ADD CONSTRAINT pools_strategy_check CHECK (strategy IN ('depth', 'mtf', 'bandit', 'cal', 'atoms', 'sample'));

ALTER TABLE pool_items DROP CONSTRAINT pool_items_origin_check,
    ADD CONSTRAINT pool_items_origin_check CHECK (origin IN ('runs', 'cal', 'sample')),
    ADD COLUMN inclusion double precision CHECK (inclusion > 0 AND inclusion <= 1),
    ADD COLUMN stratum smallint CHECK (stratum >= 0),
    ADD CONSTRAINT pool_items_design_check CHECK ((inclusion IS NULL) = (stratum IS NULL));

-- One row per (sampled pool, query, stratum): the stratum's name (e.g.
-- "ranks 11-100", "corpus 1001-10000", "judged before"), its population N_h
-- (documents it holds for the query) and the number n_h drawn from it.
CREATE TABLE pool_strata (
    pool_id     bigint NOT NULL REFERENCES pools ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    stratum     smallint NOT NULL CHECK (stratum >= 0),
    name        text NOT NULL,
    population  int NOT NULL CHECK (population >= 0),
    sampled     int NOT NULL CHECK (sampled >= 0 AND sampled <= population),
    PRIMARY KEY (pool_id, query_id, stratum)
);
