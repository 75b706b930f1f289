-- 0099: a task fetch leases its batch with one candidate scan (issue 27).
--
-- The judge pages lease in batches (api.QueueRefill/QueueAsk: up to 6
-- tasks when 2 or fewer are left). lease_items (0095) took the new items
-- one at a time, each with a scan of items_open from the top of the
-- project's priority order: k new items cost k scans over the same front
-- of the queue (the items leased out to others, locked by their leases,
-- already held or judged by this rater), 1,928 buffers a call in the load
-- suite at a batch of 4 (bench/profiles.md, step 3). Without gold items
-- the picks do not depend on one another (the first k eligible items in
-- priority order, exactly what k scans of LIMIT 1 found: an item leased
-- here is not eligible again for this rater), so one scan with LIMIT k
-- takes them all, and one INSERT leases them, in that order. A project
-- that mixes gold items in keeps the step-by-step loop: each pick there
-- depends on the rater's gold share after the previous one.
--
-- The candidates are locked FOR NO KEY UPDATE instead of FOR UPDATE: the
-- same exclusion between two leases of one item (and with the taken
-- trigger's UPDATE), but a judgment's foreign-key check on its item (FOR
-- KEY SHARE) no longer waits for another rater's lease batch to commit.
--
-- ROWS 10 (a fetch returns at most judging.MaxQueue leases; the default
-- guess is 1,000): the task batch joins the function's rows with their
-- items, queries and documents in one statement, by their keys.
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
        INSERT INTO assignments (item_id, user_id, lease_expires_at)
        SELECT t.id, p_user, now() + make_interval(secs => p_secs)
        FROM unnest(v_ids) WITH ORDINALITY AS t(id, ord)
        ORDER BY t.ord
        ON CONFLICT (item_id, user_id) DO UPDATE SET status = 'leased', leased_at = now(),
            lease_expires_at = EXCLUDED.lease_expires_at, done_at = NULL
        WHERE assignments.status = 'expired';
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

-- Room on each items page for the new row versions of leases: a lease
-- (and an expiry) changes the item's taken count, which no index holds, so
-- with free space on the page the update is HOT (no new entry in any of
-- the item indexes, no dead one left in items_open for the next candidate
-- scan to step over). Pages written from now on keep 20 % free; existing
-- pages get it when rewritten.
ALTER TABLE items SET (fillfactor = 80);

-- The items a rater wrote (validations of their own paraphrases, which
-- they are never given): a rater's first fetch counts their open items
-- (RaterOpenItems), and without an index that part read every item of the
-- project and kind (590 buffers a first fetch in the load suite; 1,000
-- paced annotators starting together made 1,000 of them). Only items with
-- an author are in it.
CREATE INDEX items_author ON items (((payload->>'author_id')::bigint)) WHERE payload ? 'author_id';

-- The rater's progress (done and skipped items of a project and kind) from
-- a counter kept by a trigger on assignments, whoever writes them, instead
-- of a count over every assignment of the rater on every task fetch (193
-- buffers a call in the load suite, growing with the rater's work). The
-- live leases are still counted (few rows, by assignments_user_status).
CREATE TABLE rater_progress (
    user_id    bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id bigint  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind       text    NOT NULL,
    done       integer NOT NULL DEFAULT 0,
    skipped    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, project_id, kind)
);

INSERT INTO rater_progress (user_id, project_id, kind, done, skipped)
SELECT a.user_id, i.project_id, i.kind,
       count(*) FILTER (WHERE a.status = 'done'), count(*) FILTER (WHERE a.status = 'skipped')
FROM assignments a JOIN items i ON i.id = a.item_id
WHERE a.status IN ('done', 'skipped')
GROUP BY a.user_id, i.project_id, i.kind;

CREATE FUNCTION assignments_progress() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    d_done    int := 0;
    d_skipped int := 0;
    v_user    bigint;
    v_item    bigint;
    v_project bigint;
    v_kind    text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        v_user := OLD.user_id;
        v_item := OLD.item_id;
        IF OLD.status = 'done' THEN
            d_done := d_done - 1;
        ELSIF OLD.status = 'skipped' THEN
            d_skipped := d_skipped - 1;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        v_user := NEW.user_id;
        v_item := NEW.item_id;
        IF NEW.status = 'done' THEN
            d_done := d_done + 1;
        ELSIF NEW.status = 'skipped' THEN
            d_skipped := d_skipped + 1;
        END IF;
    END IF;
    IF d_done = 0 AND d_skipped = 0 THEN
        RETURN NULL;
    END IF;
    SELECT project_id, kind INTO v_project, v_kind FROM items WHERE id = v_item;
    IF NOT FOUND THEN
        -- The item is being deleted (with its project): so is the counter.
        RETURN NULL;
    END IF;
    IF d_done > 0 OR d_skipped > 0 THEN
        INSERT INTO rater_progress AS rp (user_id, project_id, kind, done, skipped)
        VALUES (v_user, v_project, v_kind, greatest(d_done, 0), greatest(d_skipped, 0))
        ON CONFLICT (user_id, project_id, kind) DO UPDATE
            SET done = rp.done + d_done, skipped = rp.skipped + d_skipped;
    ELSE
        -- Only decrements (a deletion, a done row expired): never insert,
        -- so a cascade from a deleted project adds nothing.
        UPDATE rater_progress SET done = done + d_done, skipped = skipped + d_skipped
        WHERE user_id = v_user AND project_id = v_project AND kind = v_kind;
    END IF;
    RETURN NULL;
END;
$$;

-- Fired only when a row joins or leaves done/skipped (not on a lease, a
-- renewal or an expiry, nor when a correction keeps it done).
CREATE TRIGGER assignments_progress_insert AFTER INSERT ON assignments
    FOR EACH ROW WHEN (NEW.status IN ('done', 'skipped'))
    EXECUTE FUNCTION assignments_progress();
CREATE TRIGGER assignments_progress_update AFTER UPDATE OF status ON assignments
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
                       AND (OLD.status IN ('done', 'skipped') OR NEW.status IN ('done', 'skipped')))
    EXECUTE FUNCTION assignments_progress();
CREATE TRIGGER assignments_progress_delete AFTER DELETE ON assignments
    FOR EACH ROW WHEN (OLD.status IN ('done', 'skipped'))
    EXECUTE FUNCTION assignments_progress();
