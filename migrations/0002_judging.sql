-- 0002: judging support (issue 5).

-- Majority vote of the stage-2 validations of one paraphrase (validation
-- item), written once three or more validations exist and refreshed as more
-- arrive. accepted = fluent, same meaning and natural (yes or maybe).
CREATE TABLE validation_verdicts (
    item_id      bigint PRIMARY KEY REFERENCES items ON DELETE CASCADE,
    fluent       text NOT NULL,
    meaning      text NOT NULL,
    naturalness  text NOT NULL,
    votes        int  NOT NULL,
    accepted     boolean NOT NULL,
    decided_at   timestamptz NOT NULL DEFAULT now()
);

-- Leasing counts live assignments per item; corrections look up a rater's
-- latest judgment of an item.
CREATE INDEX assignments_item_status ON assignments (item_id, status);
CREATE INDEX judgments_item_user ON judgments (item_id, user_id, id DESC);
