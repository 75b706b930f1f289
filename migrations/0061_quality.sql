-- 0061: annotator quality control (issue 11). A researcher sets, per
-- project, the least gold accuracy an annotator must keep:
--   gold_min_accuracy  binarised accuracy on gold items (0 = no check);
--   gold_min_judged    gold items an annotator must have judged before the
--                      check applies;
--   gold_pause         whether an annotator below the threshold gets no new
--                      items (flagged on the dashboard either way).
ALTER TABLE projects
    ADD COLUMN gold_min_accuracy real NOT NULL DEFAULT 0 CHECK (gold_min_accuracy >= 0 AND gold_min_accuracy <= 1),
    ADD COLUMN gold_min_judged   int  NOT NULL DEFAULT 5 CHECK (gold_min_judged BETWEEN 1 AND 1000),
    ADD COLUMN gold_pause        boolean NOT NULL DEFAULT false;
