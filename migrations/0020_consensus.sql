-- 0020: consensus qrels and the adjudication queue (issue 6).

-- One row per relevance item that has at least one current judgment: the
-- consensus of the raters' latest judgments (server/consensus.Decide), or
-- the latest adjudication, which overrides. relevance is the graded label
-- exported as qrels and used by the live metrics. status is unanimous |
-- majority | tie | adjudicated; needs_adjudication puts the item in the
-- researchers' queue (disagreement after binarising, or a constraint
-- contradiction) until an adjudication decides it.
CREATE TABLE consensus (
    item_id             bigint PRIMARY KEY REFERENCES items ON DELETE CASCADE,
    project_id          bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    query_id            bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    relevance           smallint NOT NULL CHECK (relevance BETWEEN 0 AND 3),
    status              text NOT NULL CHECK (status IN ('unanimous', 'majority', 'tie', 'adjudicated')),
    votes               int NOT NULL,
    relevant_votes      int NOT NULL,
    contradictions      int NOT NULL DEFAULT 0,
    needs_adjudication  boolean NOT NULL DEFAULT false,
    adjudication_id     bigint REFERENCES adjudications ON DELETE SET NULL,
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX consensus_project_query ON consensus (project_id, query_id);
CREATE INDEX consensus_queue ON consensus (project_id, item_id) WHERE needs_adjudication;

CREATE INDEX adjudications_item ON adjudications (item_id, id DESC);
CREATE INDEX export_snapshots_project ON export_snapshots (project_id, created_at DESC);
