-- boolpool schema, version 1. See DESIGN.md §2.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE projects (
    id               bigserial PRIMARY KEY,
    name             text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    title            text NOT NULL DEFAULT '',
    raters_per_item  int  NOT NULL DEFAULT 3 CHECK (raters_per_item BETWEEN 1 AND 20),
    gold_rate        real NOT NULL DEFAULT 0.1 CHECK (gold_rate >= 0 AND gold_rate <= 1),
    lease_seconds    int  NOT NULL DEFAULT 900 CHECK (lease_seconds > 0),
    instructions     jsonb NOT NULL DEFAULT '{}',
    completion_code  text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id             bigserial PRIMARY KEY,
    username       text NOT NULL UNIQUE,
    display_name   text NOT NULL DEFAULT '',
    role           text NOT NULL CHECK (role IN ('annotator', 'researcher', 'admin')),
    password_hash  text NOT NULL DEFAULT '',
    external_id    text UNIQUE,           -- crowd-platform participant id
    disabled       boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE project_members (
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    PRIMARY KEY (project_id, user_id)
);

CREATE TABLE sessions (
    token_hash  bytea PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    csrf_token  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Documents. sentence_starts holds the byte offset of each sentence of body;
-- sentence i spans [starts[i], starts[i+1]) (the last one runs to the end).
CREATE TABLE documents (
    id               bigserial PRIMARY KEY,
    project_id       bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    ext_id           text NOT NULL,
    title            text NOT NULL DEFAULT '',
    body             text NOT NULL DEFAULT '',
    sentence_starts  int[] NOT NULL DEFAULT '{}',
    metadata         jsonb NOT NULL DEFAULT '{}',
    content_hash     bytea NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, ext_id)
);

-- Queries. expression is a boolexpr.Expr tree over the atoms (JSON); atoms is
-- [{"text":..., "start":..., "end":...}] with byte spans into original_text.
CREATE TABLE queries (
    id             bigserial PRIMARY KEY,
    project_id     bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    ext_id         text NOT NULL,
    text           text NOT NULL,
    original_query text NOT NULL DEFAULT '',
    template       text NOT NULL DEFAULT '',
    domain         text NOT NULL DEFAULT '',
    split          text NOT NULL DEFAULT '',
    atoms          jsonb NOT NULL DEFAULT '[]',
    expression     jsonb,
    answer_docs    text[] NOT NULL DEFAULT '{}',   -- gold answer set, in the file's order
    scores_raw     text,                            -- QUEST "scores", verbatim
    metadata       json NOT NULL DEFAULT '{}',      -- json, not jsonb: keeps the file's key order
    extra          json NOT NULL DEFAULT '{}',      -- unknown top-level fields of the imported line
    seq            int NOT NULL DEFAULT 0,          -- position in the imported file
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, ext_id)
);

-- Graded relevance imported from qrels / gold sets (doc_ext_id need not be a
-- stored document: QUEST ships no texts). kind 'positive' or 'negative'
-- (explicit negatives, BoolQuestions negative_ctxs / NOT probes).
CREATE TABLE qrels (
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    doc_ext_id  text NOT NULL,
    relevance   smallint NOT NULL,
    kind        text NOT NULL DEFAULT 'positive' CHECK (kind IN ('positive', 'negative')),
    source      text NOT NULL DEFAULT 'import',
    PRIMARY KEY (query_id, doc_ext_id, kind, source)
);

CREATE TABLE encoders (
    id          serial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    kind        text NOT NULL CHECK (kind IN ('dense', 'sparse')),
    model_hash  text NOT NULL,
    dim         int  NOT NULL CHECK (dim > 0),
    pooling     text NOT NULL DEFAULT 'mean',
    normalized  boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE embeddings (
    encoder_id    int NOT NULL REFERENCES encoders ON DELETE CASCADE,
    document_id   bigint NOT NULL REFERENCES documents ON DELETE CASCADE,
    content_hash  bytea NOT NULL,
    embedding     vector NOT NULL,
    PRIMARY KEY (encoder_id, document_id)
);

CREATE TABLE sparse_embeddings (
    encoder_id    int NOT NULL REFERENCES encoders ON DELETE CASCADE,
    document_id   bigint NOT NULL REFERENCES documents ON DELETE CASCADE,
    content_hash  bytea NOT NULL,
    embedding     sparsevec NOT NULL,
    PRIMARY KEY (encoder_id, document_id)
);

-- Query-side vectors: atom = -1 is the whole query text, otherwise the atom index.
CREATE TABLE query_embeddings (
    encoder_id  int NOT NULL REFERENCES encoders ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    atom        int NOT NULL,
    embedding   vector,
    sparse      sparsevec,
    PRIMARY KEY (encoder_id, query_id, atom)
);

CREATE TABLE runs (
    id          bigserial PRIMARY KEY,
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    name        text NOT NULL,
    method      text NOT NULL DEFAULT '',
    params      jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);

CREATE TABLE run_results (
    run_id      bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    doc_ext_id  text NOT NULL,
    rank        int NOT NULL,
    score       double precision NOT NULL,
    PRIMARY KEY (run_id, query_id, doc_ext_id)
);
CREATE INDEX run_results_rank ON run_results (run_id, query_id, rank);

CREATE TABLE pools (
    id          bigserial PRIMARY KEY,
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    name        text NOT NULL,
    strategy    text NOT NULL CHECK (strategy IN ('depth', 'mtf', 'bandit')),
    depth       int NOT NULL CHECK (depth > 0),
    params      jsonb NOT NULL DEFAULT '{}',
    status      text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);

-- sources: {"<run name>": rank, ...}; probe: '' or e.g. 'not:2' / 'and-atom:0'.
CREATE TABLE pool_items (
    pool_id      bigint NOT NULL REFERENCES pools ON DELETE CASCADE,
    query_id     bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    doc_ext_id   text NOT NULL,
    priority     int NOT NULL,
    sources      jsonb NOT NULL DEFAULT '{}',
    probe        text NOT NULL DEFAULT '',
    PRIMARY KEY (pool_id, query_id, doc_ext_id)
);

-- Items are what raters work on: relevance (query x document), paraphrase
-- (stage 1) and validation (stage 2) tasks. Gold items carry their answer.
CREATE TABLE items (
    id           bigserial PRIMARY KEY,
    project_id   bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('relevance', 'paraphrase', 'validation')),
    query_id     bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    document_id  bigint REFERENCES documents ON DELETE CASCADE,
    pool_id      bigint REFERENCES pools ON DELETE SET NULL,
    priority     int NOT NULL DEFAULT 0,
    payload      jsonb NOT NULL DEFAULT '{}',   -- e.g. the paraphrase to validate
    is_gold      boolean NOT NULL DEFAULT false,
    gold_answer  jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX items_relevance_unique ON items (project_id, query_id, document_id) WHERE kind = 'relevance';
CREATE INDEX items_project_kind ON items (project_id, kind, priority);

CREATE TABLE assignments (
    id                bigserial PRIMARY KEY,
    item_id           bigint NOT NULL REFERENCES items ON DELETE CASCADE,
    user_id           bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    status            text NOT NULL DEFAULT 'leased' CHECK (status IN ('leased', 'done', 'expired', 'skipped')),
    leased_at         timestamptz NOT NULL DEFAULT now(),
    lease_expires_at  timestamptz NOT NULL,
    done_at           timestamptz,
    UNIQUE (item_id, user_id)
);
CREATE INDEX assignments_user_status ON assignments (user_id, status);

-- Judgments are append-only: a correction is a new row that supersedes the
-- old one. client_id makes the write idempotent across client retries.
CREATE TABLE judgments (
    id             bigserial PRIMARY KEY,
    client_id      uuid NOT NULL UNIQUE,
    item_id        bigint NOT NULL REFERENCES items ON DELETE CASCADE,
    user_id        bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    kind           text NOT NULL CHECK (kind IN ('relevance', 'paraphrase', 'validation')),
    relevance      smallint CHECK (relevance BETWEEN 0 AND 3),
    evidence       text CHECK (evidence IN ('complete', 'partial', 'none')),
    attributions   jsonb NOT NULL DEFAULT '[]',  -- per atom: {"atom":i,"sentences":[...],"counter":bool,"satisfied":"yes|no|unsure"}
    payload        jsonb NOT NULL DEFAULT '{}',  -- paraphrase / validation answers
    contradiction  boolean NOT NULL DEFAULT false,
    comment        text NOT NULL DEFAULT '',
    skip_reason    text NOT NULL DEFAULT '',
    time_spent_ms  int NOT NULL DEFAULT 0 CHECK (time_spent_ms >= 0),
    supersedes     bigint REFERENCES judgments,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX judgments_item ON judgments (item_id);
CREATE INDEX judgments_user ON judgments (user_id, created_at);

CREATE TABLE adjudications (
    id          bigserial PRIMARY KEY,
    item_id     bigint NOT NULL REFERENCES items ON DELETE CASCADE,
    user_id     bigint NOT NULL REFERENCES users,
    relevance   smallint NOT NULL CHECK (relevance BETWEEN 0 AND 3),
    note        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Active time per annotator and day (pay by the hour).
CREATE TABLE activity (
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    day         date NOT NULL,
    active_ms   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, project_id, day)
);

CREATE TABLE export_snapshots (
    id          uuid PRIMARY KEY,
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    format      text NOT NULL,
    counts      jsonb NOT NULL DEFAULT '{}',
    created_by  bigint REFERENCES users,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_log (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    user_id     bigint REFERENCES users,
    project_id  bigint REFERENCES projects ON DELETE CASCADE,
    action      text NOT NULL,
    entity      text NOT NULL DEFAULT '',
    entity_id   text NOT NULL DEFAULT '',
    detail      jsonb NOT NULL DEFAULT '{}'
);
