-- 0050: leasing in one round trip. lease_items does what the Go code did in
-- seven statements inside one transaction (expire the rater's stale leases,
-- renew the live ones, count their gold share, pick items with SKIP LOCKED,
-- re-check each picked item's rater count, insert the assignments). Each
-- statement in a volatile PL/pgSQL function takes a fresh snapshot under
-- READ COMMITTED, so the re-check after the row lock sees leases committed
-- between the candidate scan and the lock, exactly as before.
--
-- A lease is soft state: it commits without waiting for the WAL flush
-- (synchronous_commit off for this transaction only). A crash of Postgres
-- itself can forget leases of the last moments; their items simply return
-- to the pool. Judgments are never written this way.
--
-- Arguments: project, user, kind, n (wanted live leases, including existing
-- ones), raters (r for non-gold items), gold_rate, lease length in seconds.
-- Returns the rater's live leases of the kind, oldest first.
CREATE FUNCTION lease_items(p_project bigint, p_user bigint, p_kind text, p_n int,
                            p_raters int, p_gold_rate double precision, p_secs double precision)
RETURNS SETOF assignments
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_live    int;
    v_total   int;
    v_gold    int;
    v_want    boolean;
    v_id      bigint;
    v_n       int;
    v_full    bigint[] := '{}';
    v_gold_ok boolean;
BEGIN
    SET LOCAL synchronous_commit = off;

    UPDATE assignments SET status = 'expired'
    WHERE user_id = p_user AND status = 'leased' AND lease_expires_at <= now();

    UPDATE assignments a SET lease_expires_at = now() + make_interval(secs => p_secs)
    FROM items i
    WHERE i.id = a.item_id AND a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind
      AND a.status = 'leased';
    GET DIAGNOSTICS v_live = ROW_COUNT;

    IF v_live < p_n THEN
        SELECT count(*), count(*) FILTER (WHERE i.is_gold) INTO v_total, v_gold
        FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind AND a.status <> 'expired';

        WHILE v_live < p_n LOOP
            v_want := p_gold_rate > 0 AND v_gold < p_gold_rate * (v_total + 1);
            v_id := NULL;
            IF v_want THEN
                -- Gold items are for everyone: no rater limit.
                SELECT i.id INTO v_id FROM items i
                WHERE i.project_id = p_project AND i.kind = p_kind AND i.is_gold
                  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                  AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                ORDER BY i.priority, i.id LIMIT 1
                FOR UPDATE OF i SKIP LOCKED;
                IF v_id IS NULL THEN
                    v_want := false;
                END IF;
            END IF;
            IF v_id IS NULL THEN
                LOOP
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                      AND i.done_raters < p_raters
                      AND (SELECT count(*) FROM assignments a WHERE a.item_id = i.id
                           AND (a.status = 'done' OR (a.status = 'leased' AND a.lease_expires_at > now()))) < p_raters
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                      AND NOT (i.id = ANY (v_full))
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR UPDATE OF i SKIP LOCKED;
                    EXIT WHEN v_id IS NULL;
                    -- A new statement, a new snapshot: count again now that
                    -- the row is ours.
                    SELECT count(*) INTO v_n FROM assignments a WHERE a.item_id = v_id
                      AND (a.status = 'done' OR (a.status = 'leased' AND a.lease_expires_at > now()));
                    EXIT WHEN v_n < p_raters;
                    v_full := v_full || v_id;
                    v_id := NULL;
                END LOOP;
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
        ORDER BY a.leased_at, a.id
        LIMIT p_n;
END;
$$;
