-- Review with feedback (issue 25): a researcher reviews an annotator's
-- judgment and either accepts it or corrects it with a note the annotator
-- sees. A review is its own row: the judgment itself is never changed. A
-- correction is also an adjudication of the item (adjudication_id, written
-- in the same transaction), so it feeds the consensus the way every
-- researcher decision does: it overrides the votes until a later
-- adjudication replaces it. A judgment may be reviewed again; its latest
-- review is its verdict, and the review queue lists the current judgments
-- that have none.
CREATE TABLE judgment_reviews (
    id              bigserial PRIMARY KEY,
    judgment_id     bigint NOT NULL REFERENCES judgments (id) ON DELETE CASCADE,
    project_id      bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    annotator_id    bigint NOT NULL REFERENCES users (id),
    reviewer_id     bigint NOT NULL REFERENCES users (id),
    verdict         text   NOT NULL CHECK (verdict IN ('accept', 'correct')),
    relevance       smallint CHECK (relevance BETWEEN 0 AND 3),
    note            text   NOT NULL DEFAULT '' CHECK (length(note) <= 4000),
    adjudication_id bigint REFERENCES adjudications (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT judgment_reviews_correction CHECK ((verdict = 'correct') = (relevance IS NOT NULL))
);

CREATE INDEX judgment_reviews_judgment ON judgment_reviews (judgment_id, id DESC);
CREATE INDEX judgment_reviews_annotator ON judgment_reviews (annotator_id, project_id, id DESC);
CREATE INDEX judgment_reviews_project ON judgment_reviews (project_id, id DESC);
