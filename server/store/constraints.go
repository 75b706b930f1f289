package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Constraint items (issue 13): "does this document satisfy <atom>?", kind
// 'constraint' in the items table (migration 0081). Their consensus is an
// atom label (atom_labels, source 'consensus').

// NewConstraintItem asks raters whether document DocExtID satisfies atom
// AtomID. Gold ("yes", "no" or "unsure"; "" = not a gold item) is the
// reference answer of a gold item.
type NewConstraintItem struct {
	AtomID   int64
	DocExtID string
	Priority int
	Gold     string
	PoolID   int64 // the live atoms pool that asked for it (0 = none)
}

// ConstraintPayload is items.payload of a constraint item.
type ConstraintPayload struct {
	AtomID     int64  `json:"atom_id"`
	Constraint string `json:"constraint"`
}

// InsertConstraintItems creates constraint items in one transaction; a pair
// that already has an item is left alone. It returns how many were created.
// An atom outside the project or an unknown document is ErrNotFound, and
// nothing is written.
func (s *Store) InsertConstraintItems(ctx context.Context, projectID int64, items []NewConstraintItem) (created int, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		for i, n := range items {
			var gold any
			if n.Gold != "" {
				if n.Gold != "yes" && n.Gold != "no" && n.Gold != "unsure" {
					return fmt.Errorf("store: constraint item %d: gold %q is not yes, no or unsure: %w", i, n.Gold, ErrConflict)
				}
				gold, _ = json.Marshal(map[string]string{"satisfied": n.Gold})
			}
			var atomText string
			var queryID *int64
			err := tx.QueryRow(ctx, `SELECT a.text, (SELECT min(qa.query_id) FROM query_atoms qa WHERE qa.atom_id = a.id)
				FROM atoms a WHERE a.id = $1 AND a.project_id = $2`, n.AtomID, projectID).Scan(&atomText, &queryID)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("store: constraint item %d: atom %d is not in the project: %w", i, n.AtomID, ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("store: constraint item %d: %w", i, err)
			}
			if queryID == nil {
				return fmt.Errorf("store: constraint item %d: atom %d is used by no query: %w", i, n.AtomID, ErrNotFound)
			}
			var docID int64
			err = tx.QueryRow(ctx, `SELECT id FROM documents WHERE project_id = $1 AND ext_id = $2`, projectID, n.DocExtID).Scan(&docID)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("store: constraint item %d: document %q is not in the project: %w", i, n.DocExtID, ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("store: constraint item %d: %w", i, err)
			}
			payload, err := json.Marshal(ConstraintPayload{AtomID: n.AtomID, Constraint: atomText})
			if err != nil {
				return fmt.Errorf("store: constraint item %d: %w", i, err)
			}
			var poolID *int64
			if n.PoolID != 0 {
				poolID = &n.PoolID
			}
			tag, err := tx.Exec(ctx, `INSERT INTO items (project_id, kind, query_id, document_id, priority, payload, is_gold, gold_answer, atom_id, pool_id)
				VALUES ($1, 'constraint', $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (project_id, atom_id, document_id) WHERE kind = 'constraint' DO NOTHING`,
				projectID, *queryID, docID, n.Priority, payload, n.Gold != "", gold, n.AtomID, poolID)
			if err != nil {
				return fmt.Errorf("store: constraint item %d: %w", i, err)
			}
			created += int(tag.RowsAffected())
		}
		return nil
	})
	return created, err
}

// SetConstraintLabel writes the consensus label of a constraint item as
// its (atom, document) label with source 'consensus'; label "" removes a
// consensus label (an imported one is kept). A gold item writes nothing:
// its label is the reference answer it was made from. changed reports
// whether the stored label changed.
func (s *Store) SetConstraintLabel(ctx context.Context, itemID int64, label string) (changed bool, err error) {
	var tagRows int64
	switch label {
	case "yes", "no", "unsure":
		tag, err := s.pool.Exec(ctx, `INSERT INTO atom_labels (atom_id, doc_ext_id, label, source)
			SELECT i.atom_id, d.ext_id, $2, 'consensus' FROM items i JOIN documents d ON d.id = i.document_id
			WHERE i.id = $1 AND i.kind = 'constraint' AND i.atom_id IS NOT NULL AND NOT i.is_gold
			ON CONFLICT (atom_id, doc_ext_id) DO UPDATE SET label = EXCLUDED.label, source = 'consensus', updated_at = now()
			WHERE atom_labels.label <> EXCLUDED.label OR atom_labels.source <> 'consensus'`, itemID, label)
		if err != nil {
			return false, fmt.Errorf("store: constraint label of item %d: %w", itemID, err)
		}
		tagRows = tag.RowsAffected()
	case "":
		tag, err := s.pool.Exec(ctx, `DELETE FROM atom_labels l USING items i, documents d
			WHERE i.id = $1 AND i.kind = 'constraint' AND NOT i.is_gold AND d.id = i.document_id
			AND l.atom_id = i.atom_id AND l.doc_ext_id = d.ext_id AND l.source = 'consensus'`, itemID)
		if err != nil {
			return false, fmt.Errorf("store: constraint label of item %d: %w", itemID, err)
		}
		tagRows = tag.RowsAffected()
	default:
		return false, fmt.Errorf("store: constraint label %q is not yes, no or unsure: %w", label, ErrConflict)
	}
	return tagRows > 0, nil
}

// ConstraintVotes returns the current constraint votes of a project's
// constraint items: item id → the raters' answers (yes / no / unsure).
// Items without a current vote are listed with none.
func (s *Store) ConstraintVotes(ctx context.Context, projectID int64) (map[int64][]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT i.id, c.payload->>'satisfied'
		FROM items i LEFT JOIN current_judgments c ON c.item_id = i.id AND c.project_id = $1 AND c.item_kind = 'constraint'
		WHERE i.project_id = $1 AND i.kind = 'constraint' ORDER BY i.id, c.id`, projectID)
	out := map[int64][]string{}
	var id int64
	var v *string
	err := forEach(rows, "constraint votes", func() error {
		if _, ok := out[id]; !ok {
			out[id] = nil
		}
		if v != nil && *v != "" {
			out[id] = append(out[id], *v)
		}
		return nil
	}, &id, &v)
	return out, err
}

// ConstraintPair is a candidate (atom, document) pair for a constraint
// item, with the best (lowest) priority of the relevance items it comes
// from and the number of the project's queries using the atom.
type ConstraintPair struct {
	AtomID   int64  `db:"atom_id"`
	AtomKey  string `db:"atom_key"`
	DocExtID string `db:"doc_ext_id"`
	Best     int    `db:"best"`
	Uses     int    `db:"uses"`
}

// ConstraintPairsFromItems lists the (atom, document) pairs of the
// project's pooled relevance items (every atom of the item's query with
// the item's document) that have neither a constraint item nor an atom
// label yet, best priority first.
func (s *Store) ConstraintPairsFromItems(ctx context.Context, projectID int64) ([]ConstraintPair, error) {
	rows, _ := s.pool.Query(ctx, `SELECT qa.atom_id, a.key AS atom_key, d.ext_id AS doc_ext_id, min(i.priority) AS best,
			(SELECT count(*) FROM query_atoms u WHERE u.atom_id = qa.atom_id)::int AS uses
		FROM items i JOIN query_atoms qa ON qa.query_id = i.query_id JOIN atoms a ON a.id = qa.atom_id
		JOIN documents d ON d.id = i.document_id
		WHERE i.project_id = $1 AND i.kind = 'relevance'
		AND NOT EXISTS (SELECT 1 FROM items c WHERE c.project_id = $1 AND c.kind = 'constraint' AND c.atom_id = qa.atom_id AND c.document_id = d.id)
		AND NOT EXISTS (SELECT 1 FROM atom_labels l WHERE l.atom_id = qa.atom_id AND l.doc_ext_id = d.ext_id)
		GROUP BY qa.atom_id, a.key, d.ext_id ORDER BY best, uses DESC, a.key, d.ext_id`, projectID)
	return collectAll[ConstraintPair](rows, "constraint pairs")
}

// ConstraintItemPairs returns the (atom id, document ext id) pairs that
// already have a constraint item.
func (s *Store) ConstraintItemPairs(ctx context.Context, projectID int64) (map[int64]map[string]bool, error) {
	rows, _ := s.pool.Query(ctx, `SELECT i.atom_id, d.ext_id, true FROM items i JOIN documents d ON d.id = i.document_id
		WHERE i.project_id = $1 AND i.kind = 'constraint' AND i.atom_id IS NOT NULL`, projectID)
	return collectSets(rows, "constraint items")
}

// ConstraintCounts counts a project's constraint items, those with a
// consensus atom label, and their current judgments.
func (s *Store) ConstraintCounts(ctx context.Context, projectID int64) (items, judged, judgments int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM items WHERE project_id = $1 AND kind = 'constraint'),
			(SELECT count(*) FROM items i JOIN documents d ON d.id = i.document_id
				JOIN atom_labels l ON l.atom_id = i.atom_id AND l.doc_ext_id = d.ext_id AND l.source = 'consensus'
				WHERE i.project_id = $1 AND i.kind = 'constraint'),
			(SELECT count(*) FROM current_judgments WHERE project_id = $1 AND item_kind = 'constraint')`, projectID).
		Scan(&items, &judged, &judgments)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("store: constraint counts: %w", err)
	}
	return items, judged, judgments, nil
}
