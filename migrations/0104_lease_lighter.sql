-- 0104: a lighter task fetch (issue 27).
--
-- 1. assignments_item_status (item_id, status) goes: every lookup by item
--    has the unique (item_id, user_id) index, and an item has a few
--    assignments. Each lease inserted a row into it and each judgment
--    (leased -> done, never a HOT update) another; one index less is also
--    one relation less for every statement that writes assignments to
--    lock (a lease transaction overflowed the backend's 16 fast-path
--    locks: LWLock:LockManager waits).
-- 2. lease_items asks whether any lease has run out with min() over the
--    expiry index (below) instead of an EXISTS that could be planned as
--    a sequential scan.
-- 3. A candidate the rater holds or has judged is found by one look-up of
--    the (item_id, user_id) key per candidate (a scalar subquery: the
--    key is unique), not by a NOT EXISTS, which the planner could turn
--    into an anti-join against every assignment of the rater, read in
--    full on each fetch (their whole history: 80 rows, 25-36 buffers, per
--    fetch by the end of a load run; thousands for a long-serving
--    rater), a plan plpgsql then kept. Same rule: no assignment of the
--    item to the rater, or only an expired one.
-- 4. lease_items runs with enable_seqscan off. Its statements are key
--    look-ups and scans in index order; plpgsql keeps each one's plan for
--    the connection's life, and a plan made while a table was small (a
--    new database, before the first autoanalyze) was a sequential scan,
--    kept while the table grew: in a load run, fetches read every
--    assignment to find the rater's live leases, and every item to bump
--    the taken counts of the two just leased (1,517 buffers a call in
--    TestLeaseCandidateCheckIgnoresRaterHistory, against 100-odd).
-- The rest of lease_items is 0103's.
DROP INDEX assignments_item_status;

CREATE OR REPLACE FUNCTION lease_items(p_project bigint, p_user bigint, p_kind text, p_n int,
                                       p_raters int, p_gold_rate double precision, p_secs double precision)
RETURNS SETOF assignments
LANGUAGE plpgsql VOLATILE ROWS 10 SET enable_seqscan = off AS $$
DECLARE
    v_live    int;
    v_total   int;
    v_gold    int;
    v_want    boolean;
    v_id      bigint;
    v_ids     bigint[];
    v_exp     bigint[];
    v_items   bigint[];
    -- items.open is exact for the item's own rater count: it says
    -- nothing when the caller asks for more raters than that.
    v_raters  int := item_raters(p_project, p_kind);
    v_hint    boolean := p_raters <= v_raters;
BEGIN
    SET LOCAL synchronous_commit = off;

    -- Every expired lease (not only this rater's) gives its slot back,
    -- without waiting for any lock: the run-out leases another transaction
    -- holds, and those whose item another transaction holds, are left to a
    -- later fetch. The items are locked in id order and their counts taken
    -- with one UPDATE (the row trigger skips these rows, as in the lease
    -- batch below). Before, each expired row's trigger locked its item in
    -- the order the rows came, so two fetches expiring leases of the same
    -- items in different orders could deadlock (one answered by Postgres'
    -- deadlock detector after deadlock_timeout, i.e. a 1 s stall of both).
    --
    -- Whether any lease has run out is the smallest expiry in the expiry
    -- index (0104): min() over an indexed expression is planned as one
    -- step into the index whatever the statistics say. The EXISTS it
    -- replaces was planned as a sequential scan whenever the statistics
    -- made "expiry <= now()" look common (no statistics yet: a third of
    -- the rows), and plpgsql kept that plan for the connection's life:
    -- every fetch then read the whole table (123 of the fetch's 464
    -- buffers in a load run).
    IF (SELECT min(CASE WHEN status = 'leased' THEN lease_expires_at END) FROM assignments) <= now() THEN
        v_exp := ARRAY(SELECT id FROM assignments
                       WHERE (CASE WHEN status = 'leased' THEN lease_expires_at END) <= now()
                       FOR UPDATE SKIP LOCKED);
        IF cardinality(v_exp) > 0 THEN
            v_items := ARRAY(SELECT i.id FROM items i
                             WHERE i.id IN (SELECT a.item_id FROM assignments a WHERE a.id = ANY (v_exp))
                             ORDER BY i.id
                             FOR NO KEY UPDATE OF i SKIP LOCKED);
            PERFORM set_config('boolpool.lease_counts_taken', 'on', true);
            WITH gone AS (
                UPDATE assignments SET status = 'expired'
                WHERE id = ANY (v_exp) AND item_id = ANY (v_items) AND status = 'leased'
                RETURNING item_id),
            per_item AS (SELECT item_id, count(*)::int AS n FROM gone GROUP BY item_id)
            UPDATE items i SET taken = i.taken - p.n, open = i.taken - p.n < item_raters(i.project_id, i.kind)
            FROM per_item p WHERE i.id = p.item_id;
            PERFORM set_config('boolpool.lease_counts_taken', 'off', true);
        END IF;
    END IF;

    -- The rater's live leases are counted; only those with less than three
    -- quarters of a lease left are renewed (0103). A fetch every few judgments then
    -- writes no lease row at all: each renewal was a new row version in
    -- every index of assignments (the expiry index holds the expiry), for
    -- leases that had most of their time left. The status is checked again
    -- on the row's newest version (a judgment may have completed it).
    WITH live AS (
        SELECT a.id, a.lease_expires_at FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind
          AND a.status = 'leased' AND a.lease_expires_at > now()
    ), renewed AS (
        UPDATE assignments a SET lease_expires_at = now() + make_interval(secs => p_secs)
        FROM live
        WHERE a.id = live.id AND live.lease_expires_at < now() + make_interval(secs => p_secs * 0.75)
          AND a.status = 'leased'
    )
    SELECT count(*) INTO v_live FROM live;

    IF v_live < p_n AND NOT p_gold_rate > 0 THEN
        -- The whole batch from one scan (the row locks re-check taken on
        -- the newest row versions, as in 0095).
        IF v_hint THEN
            v_ids := ARRAY(
                SELECT i.id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold AND i.open
                  AND i.taken < p_raters
                  AND coalesce((SELECT a.status FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user), 'expired') = 'expired'
                  AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                ORDER BY i.priority, i.id LIMIT p_n - v_live
                FOR NO KEY UPDATE OF i SKIP LOCKED);
        ELSE
            v_ids := ARRAY(
                SELECT i.id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                  AND i.taken < p_raters
                  AND coalesce((SELECT a.status FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user), 'expired') = 'expired'
                  AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                ORDER BY i.priority, i.id LIMIT p_n - v_live
                FOR NO KEY UPDATE OF i SKIP LOCKED);
        END IF;
        -- In the scan's order, so the assignment ids (the order a fetch
        -- returns leases taken at one instant) follow the priority order.
        -- Every row this INSERT writes (a new lease, or the rater's own
        -- expired one leased again) joins leased: its item gains one slot.
        -- The items are distinct and already locked by the scan above, so
        -- one UPDATE of them counts the batch; the row triggers leave these
        -- rows to it (boolpool.lease_counts_taken, on for this statement
        -- only).
        PERFORM set_config('boolpool.lease_counts_taken', 'on', true);
        WITH leased AS (
            INSERT INTO assignments (item_id, user_id, lease_expires_at)
            SELECT t.id, p_user, now() + make_interval(secs => p_secs)
            FROM unnest(v_ids) WITH ORDINALITY AS t(id, ord)
            ORDER BY t.ord
            ON CONFLICT (item_id, user_id) DO UPDATE SET status = 'leased', leased_at = now(),
                lease_expires_at = EXCLUDED.lease_expires_at, done_at = NULL
            WHERE assignments.status = 'expired'
            RETURNING item_id)
        UPDATE items i SET taken = i.taken + 1, open = i.taken + 1 < v_raters
        FROM leased l WHERE i.id = l.item_id;
        PERFORM set_config('boolpool.lease_counts_taken', 'off', true);
    ELSIF v_live < p_n THEN
        -- The gold share needs the rater's counts.
        SELECT count(*), count(*) FILTER (WHERE i.is_gold) INTO v_total, v_gold
        FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind AND a.status <> 'expired';

        WHILE v_live < p_n LOOP
            v_want := v_gold < p_gold_rate * (v_total + 1);
            v_id := NULL;
            IF v_want THEN
                -- Gold items are for everyone: no rater limit.
                SELECT i.id INTO v_id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND i.is_gold
                  AND coalesce((SELECT a.status FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user), 'expired') = 'expired'
                  AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                ORDER BY i.priority, i.id LIMIT 1
                FOR NO KEY UPDATE OF i SKIP LOCKED;
                IF v_id IS NULL THEN
                    v_want := false;
                END IF;
            END IF;
            IF v_id IS NULL THEN
                IF v_hint THEN
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold AND i.open
                      AND i.taken < p_raters
                      AND coalesce((SELECT a.status FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user), 'expired') = 'expired'
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR NO KEY UPDATE OF i SKIP LOCKED;
                ELSE
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                      AND i.taken < p_raters
                      AND coalesce((SELECT a.status FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user), 'expired') = 'expired'
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR NO KEY UPDATE OF i SKIP LOCKED;
                END IF;
            END IF;
            EXIT WHEN v_id IS NULL;

            INSERT INTO assignments (item_id, user_id, lease_expires_at)
            VALUES (v_id, p_user, now() + make_interval(secs => p_secs))
            ON CONFLICT (item_id, user_id) DO UPDATE SET status = 'leased', leased_at = now(),
                lease_expires_at = EXCLUDED.lease_expires_at, done_at = NULL
            WHERE assignments.status = 'expired';
            v_live := v_live + 1;
            v_total := v_total + 1;
            IF v_want THEN
                v_gold := v_gold + 1;
            END IF;
        END LOOP;
    END IF;

    RETURN QUERY
        SELECT a.* FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind AND a.status = 'leased'
          AND a.lease_expires_at > now()
        ORDER BY a.leased_at, a.id
        LIMIT p_n;
END;
$$;
