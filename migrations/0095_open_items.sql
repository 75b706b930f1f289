-- 0095: a lease that does not rescan taken items (issue 27).
--
-- lease_items (0050) walked items_project_kind from the top of a project's
-- priority order on every task fetch and re-read every item already done
-- (O(judged items) per fetch), counting the live raters of each item still
-- leased out with a correlated subquery. Under a crowd this was the
-- database's main cost (bench/profiles.md).
--
-- Now each item keeps a count of its taken slots and whether it may still
-- need raters:
--
--   items.taken: its assignments that are leased or done. It is kept by
--   triggers on assignments, whoever writes them. A lease past its expiry
--   still counts until it is marked expired; lease_items marks every
--   expired lease (of any rater) first, through an index of leases by
--   expiry, so a fetch sees the slots of abandoned leases free
--   again just as the old live count did.
--
--   items.open: taken < the raters the item gets (item_raters: 1 for a
--   paraphrase, 3 for a validation, the project's raters_per_item for the
--   rest, as judging.ratersFor). It is recomputed with taken, and for a
--   whole project when its raters_per_item changes.
--
-- The lease scans items_open (open non-gold items only, in priority order):
-- the items it passes over are those the rater holds or judged, which does
-- not grow with the project's progress. taken and open are exact (kept by
-- the triggers under the item's row lock), and the lease's row lock
-- re-checks them on the newest row version, so the lease no longer counts
-- the live raters of the item it locked. A caller
-- asking for more raters than the item's own count (only tests do) gets
-- the scan without the hint, filtered by taken instead of a live count.
ALTER TABLE items
    ADD COLUMN taken int NOT NULL DEFAULT 0,
    ADD COLUMN open  boolean NOT NULL DEFAULT true;

-- PL/pgSQL, not SQL: a SQL function that cannot be inlined is planned
-- again on every call, and the trigger below calls this on every lease.
CREATE FUNCTION item_raters(p_project bigint, p_kind text) RETURNS int
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF p_kind = 'paraphrase' THEN
        RETURN 1;
    ELSIF p_kind = 'validation' THEN
        RETURN 3;
    END IF;
    RETURN (SELECT raters_per_item FROM projects WHERE id = p_project);
END;
$$;

UPDATE items i SET taken = t.n
FROM (SELECT item_id, count(*)::int AS n FROM assignments WHERE status IN ('leased', 'done') GROUP BY item_id) t
WHERE i.id = t.item_id;
UPDATE items SET open = false WHERE taken >= item_raters(project_id, kind);

CREATE FUNCTION assignments_taken() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    d      int := 0;
    v_item bigint;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        v_item := OLD.item_id;
        IF OLD.status IN ('leased', 'done') THEN
            d := d - 1;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        v_item := NEW.item_id;
        IF NEW.status IN ('leased', 'done') THEN
            d := d + 1;
        END IF;
    END IF;
    IF d <> 0 THEN
        UPDATE items SET taken = taken + d, open = taken + d < item_raters(project_id, kind)
        WHERE id = v_item;
    END IF;
    RETURN NULL;
END;
$$;

-- Fired only when a row joins or leaves leased/done (the WHEN clauses cost
-- no function call): not when a lease is judged or renewed.
CREATE TRIGGER assignments_taken_insert AFTER INSERT ON assignments
    FOR EACH ROW WHEN (NEW.status IN ('leased', 'done'))
    EXECUTE FUNCTION assignments_taken();
CREATE TRIGGER assignments_taken_update AFTER UPDATE OF status ON assignments
    FOR EACH ROW WHEN ((OLD.status IN ('leased', 'done')) <> (NEW.status IN ('leased', 'done')))
    EXECUTE FUNCTION assignments_taken();
CREATE TRIGGER assignments_taken_delete AFTER DELETE ON assignments
    FOR EACH ROW WHEN (OLD.status IN ('leased', 'done'))
    EXECUTE FUNCTION assignments_taken();

CREATE FUNCTION projects_reopen() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE items SET open = taken < NEW.raters_per_item
    WHERE project_id = NEW.id AND kind NOT IN ('paraphrase', 'validation')
      AND open <> (taken < NEW.raters_per_item);
    RETURN NULL;
END;
$$;

CREATE TRIGGER projects_reopen AFTER UPDATE OF raters_per_item ON projects
    FOR EACH ROW WHEN (OLD.raters_per_item IS DISTINCT FROM NEW.raters_per_item)
    EXECUTE FUNCTION projects_reopen();

-- items.done_raters (0003) goes: every judgment updated the item row for it,
-- so the raters of one item queued for its row lock through each other's
-- commits (bench/profiles.md: Lock:transactionid and Lock:tuple on the
-- judgment statement). taken replaces it in the lease; the few readers
-- count done assignments.
ALTER TABLE items DROP COLUMN done_raters;

CREATE INDEX items_open ON items (project_id, kind, priority, id) WHERE open AND NOT is_gold;
CREATE INDEX items_gold ON items (project_id, kind, priority, id) WHERE is_gold;
-- The sweep's index: the expiry of leased rows (NULL for the rest). An
-- expression no other query uses: a partial index on leased rows (or one
-- led by status) was also taken by the planner for "this rater's leased
-- rows", which the lease and the task batch ask for several times per
-- fetch, whenever the statistics were taken with few leases out: a scan
-- of every rater's leases (and, under a crowd, of the dead entries of
-- leases since judged) instead of the rater's own.
CREATE INDEX assignments_lease_expiry ON assignments ((CASE WHEN status = 'leased' THEN lease_expires_at END));

CREATE OR REPLACE FUNCTION lease_items(p_project bigint, p_user bigint, p_kind text, p_n int,
                                       p_raters int, p_gold_rate double precision, p_secs double precision)
RETURNS SETOF assignments
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_live    int;
    v_total   int;
    v_gold    int;
    v_want    boolean;
    v_id      bigint;
    -- items.open is exact for the item's own rater count: it says
    -- nothing when the caller asks for more raters than that.
    v_hint    boolean := p_raters <= item_raters(p_project, p_kind);
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

    IF v_live < p_n THEN
        -- The gold share needs the rater's counts; without gold nothing does.
        v_total := 0;
        v_gold := 0;
        IF p_gold_rate > 0 THEN
            SELECT count(*), count(*) FILTER (WHERE i.is_gold) INTO v_total, v_gold
            FROM assignments a JOIN items i ON i.id = a.item_id
            WHERE a.user_id = p_user AND i.project_id = p_project AND i.kind = p_kind AND a.status <> 'expired';
        END IF;

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
                -- The row lock re-checks taken on the newest row (and taken
                -- changes only under that lock), so the item is ours to
                -- lease: no count again, as 0050 needed.
                IF v_hint THEN
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold AND i.open
                      AND i.taken < p_raters
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR UPDATE OF i SKIP LOCKED;
                ELSE
                    SELECT i.id INTO v_id FROM items i
                    WHERE i.project_id = p_project AND i.kind = p_kind AND NOT i.is_gold
                      AND i.taken < p_raters
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = p_user AND a.status <> 'expired')
                      AND coalesce((i.payload->>'author_id')::bigint, 0) <> p_user
                    ORDER BY i.priority, i.id LIMIT 1
                    FOR UPDATE OF i SKIP LOCKED;
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
