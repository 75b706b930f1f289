-- Shared constraints (issue 13): a project's atoms identified across queries
-- by normalised text (key), the uses of each atom (query, atom index), and
-- per-(atom, document) labels from which query qrels are derived.
CREATE TABLE atoms (
    id          bigserial PRIMARY KEY,
    project_id  bigint NOT NULL REFERENCES projects ON DELETE CASCADE,
    key         text NOT NULL CHECK (key <> ''),
    text        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, key)
);

-- text is the query's atom text when the link was made; a query whose atom
-- text changes is re-linked by the next sync, other links (merges, splits)
-- are kept.
CREATE TABLE query_atoms (
    query_id    bigint NOT NULL REFERENCES queries ON DELETE CASCADE,
    atom_index  int NOT NULL CHECK (atom_index >= 0),
    atom_id     bigint NOT NULL REFERENCES atoms ON DELETE CASCADE,
    text        text NOT NULL,
    PRIMARY KEY (query_id, atom_index)
);
CREATE INDEX query_atoms_atom ON query_atoms (atom_id);

-- One label per (atom, document): 'yes' satisfies, 'no' does not, 'unsure'.
-- source: 'consensus' (constraint judgments), 'import' (an atom-qrels file).
CREATE TABLE atom_labels (
    atom_id     bigint NOT NULL REFERENCES atoms ON DELETE CASCADE,
    doc_ext_id  text NOT NULL,
    label       text NOT NULL CHECK (label IN ('yes', 'no', 'unsure')),
    source      text NOT NULL DEFAULT 'import',
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (atom_id, doc_ext_id)
);

-- A generated Boolean variant (A AND NOT B beside A AND B) points at its
-- source query.
ALTER TABLE queries ADD COLUMN variant_of bigint REFERENCES queries ON DELETE CASCADE;
CREATE INDEX queries_variant_of ON queries (variant_of) WHERE variant_of IS NOT NULL;
