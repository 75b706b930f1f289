-- 0100: a lease batch counts its items' taken slots with one UPDATE
-- (issue 27, step 4).
--
-- items.taken/open (0095) were kept by a row trigger on assignments: a
-- lease batch of k new items ran k trigger calls, each an UPDATE of one
-- item (0.36 ms and 13 buffers per leased item in the load suite's
-- profile, bench/profiles.md step 3). lease_items now writes its leases
-- and the items' counts in one statement (a data-modifying WITH whose
-- RETURNING lists every row the INSERT wrote, new or an expired lease of
-- the same rater taken again), and the insert and update triggers skip
-- rows written while boolpool.lease_counts_taken is on: lease_items sets
-- it (transaction-local) just before that statement and off right after,
-- so every other writer of assignments — judgments, skips, expiry (also
-- inside lease_items), the gold loop, deletions, direct SQL — is counted
-- by the triggers as before. An AFTER trigger's WHEN is evaluated when the
-- row is written, so a skipped row queues no trigger event at all.
CREATE OR REPLACE FUNCTION lease_items(p_project bigint, p_user bigint, p_kind text, p_n int,
                                       p_raters int, p_gold_rate double precision, p_secs double precision)
RETURNS SETOF assignments
LANGUAGE plpgsql VOLATILE ROWS 10 AS $$
DECLARE
    v_live    int;
    v_total   int;
    v_gold    int;
    v_want    boolean;
    v_id      bigint;
    v_ids     bigint[];
    -- items.open is exact for the item's own rater count: it says
    -- nothing when the caller asks for more raters than that.
    v_raters  int := item_raters(p_project, p_kind);
    v_hint    boolean := p_raters <= v_raters;
BEGIN
    SET LOCAL synchronous_commit = off;

    -- Every expired lease (not only this rater's) gives its slot back.
    -- Rows another fetch is expiring right now are left to it. (= ANY of
    -- an array: a join with the subquery was planned as a scan of every
    -- assignment.)
    IF EXISTS (SELECT 1 FROM assignments
               WHERE (CASE WHEN status = 'leased' THEN lease_expires_at END) <= now()) THEN
        UPDATE assignments SET status = 'expired'
        WHERE id = ANY (ARRAY(SELECT id FROM assignments
                              WHERE (CASE WHEN status = 'leased' THEN lease_expires_at END) <= now()
                              FOR UPDATE SKIP LOCKED))
          AND status = 'leased';
    END IF;

    UPDATE assignments a SET lease_expires_at = now() + make_interval(secs => p_secs)
    FROM items i
    WHERE i.id = a.item_id AND a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind
      AND a.status = 'leased' AND a.lease_expires_at > now();
    GET DIAGNOSTICS v_live = ROW_COUNT;

    IF v_live < p_n AND NOT p_gold_rate > 0 THEN
        -- The whole batch from one scan (the row locks re-check taken on
        -- the newest row versions, as in 0095).
        IF v_hint THEN
            v_ids := ARRAY(
                SELECT i.id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold AND i.open
                  AND i.taken < p_raters
                  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                  AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                ORDER BY i.priority, i.id LIMIT p_n - v_live
                FOR NO KEY UPDATE OF i SKIP LOCKED);
        ELSE
            v_ids := ARRAY(
                SELECT i.id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                  AND i.taken < p_raters
                  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
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
                  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
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
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR NO KEY UPDATE OF i SKIP LOCKED;
                ELSE
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                      AND i.taken < p_raters
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
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

DROP TRIGGER assignments_taken_insert ON assignments;
DROP TRIGGER assignments_taken_update ON assignments;
CREATE TRIGGER assignments_taken_insert AFTER INSERT ON assignments
    FOR EACH ROW WHEN (NEW.status IN ('leased', 'done')
                       AND current_setting('boolpool.lease_counts_taken', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION assignments_taken();
CREATE TRIGGER assignments_taken_update AFTER UPDATE OF status ON assignments
    FOR EACH ROW WHEN ((OLD.status IN ('leased', 'done')) <> (NEW.status IN ('leased', 'done'))
                       AND current_setting('boolpool.lease_counts_taken', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION assignments_taken();
