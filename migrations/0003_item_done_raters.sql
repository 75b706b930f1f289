-- 0003: a per-item count of completed raters, kept by the judgment write, so
-- leasing skips items that already have r judgments without counting their
-- assignments row by row.
ALTER TABLE items ADD COLUMN done_raters int NOT NULL DEFAULT 0;
UPDATE items i SET done_raters = d.n
FROM (SELECT item_id, count(*) AS n FROM assignments WHERE status = 'done' GROUP BY item_id) d
WHERE d.item_id = i.id;
