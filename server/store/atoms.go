package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// AtomLink is one use of a shared atom: atom AtomIndex of query QueryID.
type AtomLink struct {
	QueryID    int64  `db:"query_id"`
	QueryExtID string `db:"query_ext_id"`
	AtomIndex  int    `db:"atom_index"`
	AtomID     int64  `db:"atom_id"`
	Key        string `db:"key"`
	AtomText   string `db:"atom_text"` // the shared atom's display text
	UseText    string `db:"use_text"`  // the query's atom text when linked
}

// AtomLinks returns every atom use of a project, by query order then index.
func (s *Store) AtomLinks(ctx context.Context, projectID int64) ([]AtomLink, error) {
	rows, _ := s.pool.Query(ctx, `SELECT qa.query_id, q.ext_id AS query_ext_id, qa.atom_index, qa.atom_id,
			a.key, a.text AS atom_text, qa.text AS use_text
		FROM query_atoms qa JOIN queries q ON q.id = qa.query_id JOIN atoms a ON a.id = qa.atom_id
		WHERE q.project_id = $1 ORDER BY q.seq, q.id, qa.atom_index`, projectID)
	return collectAll[AtomLink](rows, "atom links")
}

// NewAtomLink links a query's atom to the atom with Key (created with Text
// when the project has none).
type NewAtomLink struct {
	QueryID   int64
	AtomIndex int
	Key       string
	Text      string
}

// LinkAtoms writes links in one transaction, replacing any link of the same
// (query, index), and removes the links of those queries at indexes beyond
// keep[queryID] (their atom count). It returns how many atoms were created.
func (s *Store) LinkAtoms(ctx context.Context, projectID int64, links []NewAtomLink, keep map[int64]int) (created int, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		for qid, n := range keep {
			if _, err := tx.Exec(ctx, `DELETE FROM query_atoms qa USING queries q
				WHERE qa.query_id = $1 AND q.id = qa.query_id AND q.project_id = $2 AND qa.atom_index >= $3`, qid, projectID, n); err != nil {
				return fmt.Errorf("store: unlink atoms: %w", err)
			}
		}
		for _, l := range links {
			var id int64
			var fresh bool
			err := tx.QueryRow(ctx, `WITH ins AS (
					INSERT INTO atoms (project_id, key, text) VALUES ($1, $2, $3)
					ON CONFLICT (project_id, key) DO NOTHING RETURNING id)
				SELECT id, true FROM ins UNION ALL SELECT id, false FROM atoms WHERE project_id = $1 AND key = $2
				LIMIT 1`, projectID, l.Key, l.Text).Scan(&id, &fresh)
			if err != nil {
				return fmt.Errorf("store: atom %q: %w", l.Key, err)
			}
			if fresh {
				created++
			}
			tag, err := tx.Exec(ctx, `INSERT INTO query_atoms (query_id, atom_index, atom_id, text)
				SELECT $1, $2, $3, $4 FROM queries WHERE id = $1 AND project_id = $5
				ON CONFLICT (query_id, atom_index) DO UPDATE SET atom_id = EXCLUDED.atom_id, text = EXCLUDED.text`,
				l.QueryID, l.AtomIndex, id, l.Text, projectID)
			if err != nil {
				return fmt.Errorf("store: link query %d atom %d: %w", l.QueryID, l.AtomIndex, err)
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("store: link query %d: %w", l.QueryID, ErrNotFound)
			}
		}
		return nil
	})
	return created, err
}

// atomInProject checks that atom id belongs to the project.
func atomInProject(ctx context.Context, tx pgx.Tx, projectID, atomID int64) (string, error) {
	var key string
	err := tx.QueryRow(ctx, `SELECT key FROM atoms WHERE id = $1 AND project_id = $2`, atomID, projectID).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("store: atom %d: %w", atomID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: atom %d: %w", atomID, err)
	}
	return key, nil
}

// MergeAtoms moves every use and label of atom from into atom into and
// deletes from, audited. Where both atoms labelled the same document
// differently the merged label becomes 'unsure' (the evidence disagrees);
// conflicts counts those documents.
func (s *Store) MergeAtoms(ctx context.Context, userID, projectID, into, from int64) (conflicts int, err error) {
	if into == from {
		return 0, fmt.Errorf("store: merge atom %d into itself: %w", into, ErrConflict)
	}
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		intoKey, err := atomInProject(ctx, tx, projectID, into)
		if err != nil {
			return err
		}
		fromKey, err := atomInProject(ctx, tx, projectID, from)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM atom_labels a JOIN atom_labels b ON a.doc_ext_id = b.doc_ext_id
			WHERE a.atom_id = $1 AND b.atom_id = $2 AND a.label <> b.label`, into, from).Scan(&conflicts); err != nil {
			return fmt.Errorf("store: merge atoms: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO atom_labels (atom_id, doc_ext_id, label, source)
			SELECT $1, doc_ext_id, label, source FROM atom_labels WHERE atom_id = $2
			ON CONFLICT (atom_id, doc_ext_id) DO UPDATE SET
				label = CASE WHEN atom_labels.label = EXCLUDED.label THEN atom_labels.label ELSE 'unsure' END,
				updated_at = now()`, into, from); err != nil {
			return fmt.Errorf("store: merge atom labels: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE query_atoms SET atom_id = $1 WHERE atom_id = $2`, into, from); err != nil {
			return fmt.Errorf("store: merge atom uses: %w", err)
		}
		// Constraint items follow (migration 0081), except where into has
		// an item of the same document (its label was merged above).
		if _, err := tx.Exec(ctx, `UPDATE items i SET atom_id = $1 WHERE i.atom_id = $2 AND i.kind = 'constraint'
			AND NOT EXISTS (SELECT 1 FROM items o WHERE o.atom_id = $1 AND o.kind = 'constraint' AND o.document_id = i.document_id)`, into, from); err != nil {
			return fmt.Errorf("store: merge atom items: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM atoms WHERE id = $1`, from); err != nil {
			return fmt.Errorf("store: merge atoms: %w", err)
		}
		return audit(ctx, tx, userID, projectID, "atoms.merge", "atom", fmt.Sprint(into),
			map[string]any{"into": intoKey, "from": fromKey, "conflicts": conflicts})
	})
	return conflicts, err
}

// AtomUse names one use of an atom.
type AtomUse struct {
	QueryID   int64
	AtomIndex int
}

// SplitAtom moves the given uses of atom atomID to a new atom (newKey,
// newText) and returns its id. The new atom starts without labels: the old
// labels were given for the old atom's text. Audited.
func (s *Store) SplitAtom(ctx context.Context, userID, projectID, atomID int64, uses []AtomUse, newKey, newText string) (int64, error) {
	var newID int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		key, err := atomInProject(ctx, tx, projectID, atomID)
		if err != nil {
			return err
		}
		var total int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM query_atoms WHERE atom_id = $1`, atomID).Scan(&total); err != nil {
			return fmt.Errorf("store: split atom: %w", err)
		}
		if len(uses) == 0 || len(uses) >= total {
			return fmt.Errorf("store: split atom %d: move between 1 and %d of its %d uses, got %d: %w", atomID, total-1, total, len(uses), ErrConflict)
		}
		err = tx.QueryRow(ctx, `INSERT INTO atoms (project_id, key, text) VALUES ($1, $2, $3) RETURNING id`, projectID, newKey, newText).Scan(&newID)
		if isUniqueViolation(err) {
			return fmt.Errorf("store: split atom: key %q is taken: %w", newKey, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: split atom: %w", err)
		}
		for _, u := range uses {
			tag, err := tx.Exec(ctx, `UPDATE query_atoms SET atom_id = $1 WHERE query_id = $2 AND atom_index = $3 AND atom_id = $4`,
				newID, u.QueryID, u.AtomIndex, atomID)
			if err != nil {
				return fmt.Errorf("store: split atom: %w", err)
			}
			if tag.RowsAffected() != 1 {
				return fmt.Errorf("store: split atom %d: query %d atom %d is not one of its uses: %w", atomID, u.QueryID, u.AtomIndex, ErrNotFound)
			}
		}
		return audit(ctx, tx, userID, projectID, "atoms.split", "atom", fmt.Sprint(atomID),
			map[string]any{"key": key, "new_key": newKey, "new_id": newID, "uses": len(uses)})
	})
	return newID, err
}

// AtomLabel is one (atom, document) label: yes, no or unsure.
type AtomLabel struct {
	AtomID   int64  `db:"atom_id"`
	Key      string `db:"key"`
	DocExtID string `db:"doc_ext_id"`
	Label    string `db:"label"`
	Source   string `db:"source"`
}

// SetAtomLabels upserts labels (Key is ignored) of the project's atoms in
// one transaction.
func (s *Store) SetAtomLabels(ctx context.Context, projectID int64, labels []AtomLabel) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, l := range labels {
			if l.Label != "yes" && l.Label != "no" && l.Label != "unsure" {
				return fmt.Errorf("store: atom %d doc %q: label %q is not yes, no or unsure: %w", l.AtomID, l.DocExtID, l.Label, ErrConflict)
			}
			src := l.Source
			if src == "" {
				src = "import"
			}
			tag, err := tx.Exec(ctx, `INSERT INTO atom_labels (atom_id, doc_ext_id, label, source)
				SELECT id, $2, $3, $4 FROM atoms WHERE id = $1 AND project_id = $5
				ON CONFLICT (atom_id, doc_ext_id) DO UPDATE SET label = EXCLUDED.label, source = EXCLUDED.source, updated_at = now()`,
				l.AtomID, l.DocExtID, l.Label, src, projectID)
			if err != nil {
				return fmt.Errorf("store: atom label: %w", err)
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("store: atom %d: %w", l.AtomID, ErrNotFound)
			}
		}
		return nil
	})
}

// AtomLabels returns every atom label of a project, by atom key then document.
func (s *Store) AtomLabels(ctx context.Context, projectID int64) ([]AtomLabel, error) {
	rows, _ := s.pool.Query(ctx, `SELECT l.atom_id, a.key, l.doc_ext_id, l.label, l.source
		FROM atom_labels l JOIN atoms a ON a.id = l.atom_id WHERE a.project_id = $1 ORDER BY a.key, l.doc_ext_id`, projectID)
	return collectAll[AtomLabel](rows, "atom labels")
}

// VariantIn is a generated variant query of SourceID; its atoms are linked
// to the source's shared atoms (AtomIDs by index).
type VariantIn struct {
	SourceID int64
	Query    QueryIn
	AtomIDs  []int64
}

// InsertVariants upserts variant queries (by ext id) with variant_of set
// and their atom links, in one transaction, and returns their ids.
func (s *Store) InsertVariants(ctx context.Context, projectID int64, vs []VariantIn) ([]int64, error) {
	ids := make([]int64, len(vs))
	_, err := s.Import(ctx, projectID, func(im *Importer) error {
		for i, v := range vs {
			id, err := im.Query(ctx, v.Query)
			if err != nil {
				return err
			}
			ids[i] = id
			tag, err := im.tx.Exec(ctx, `UPDATE queries SET variant_of = $2 WHERE id = $1
				AND EXISTS (SELECT 1 FROM queries s WHERE s.id = $2 AND s.project_id = $3)`, id, v.SourceID, projectID)
			if err != nil {
				return fmt.Errorf("store: variant of %d: %w", v.SourceID, err)
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("store: variant source query %d: %w", v.SourceID, ErrNotFound)
			}
			for j, a := range v.AtomIDs {
				if _, err := im.tx.Exec(ctx, `INSERT INTO query_atoms (query_id, atom_index, atom_id, text)
					SELECT $1, $2, id, text FROM atoms WHERE id = $3 AND project_id = $4
					ON CONFLICT (query_id, atom_index) DO UPDATE SET atom_id = EXCLUDED.atom_id, text = EXCLUDED.text`,
					id, j, a, projectID); err != nil {
					return fmt.Errorf("store: variant atom link: %w", err)
				}
			}
		}
		return nil
	})
	return ids, err
}

// VariantSources maps each variant query's id to its source query's id.
func (s *Store) VariantSources(ctx context.Context, projectID int64) (map[int64]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, variant_of FROM queries WHERE project_id = $1 AND variant_of IS NOT NULL`, projectID)
	return collectMap[int64, int64](rows, "variant sources")
}
