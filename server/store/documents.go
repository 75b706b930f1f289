package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"
)

// Document is one corpus document. SentenceStarts holds the byte offset of
// each sentence in Body.
type Document struct {
	ID             int64           `db:"id"`
	ProjectID      int64           `db:"project_id"`
	ExtID          string          `db:"ext_id"`
	Title          string          `db:"title"`
	Body           string          `db:"body"`
	SentenceStarts []int32         `db:"sentence_starts"`
	Metadata       json.RawMessage `db:"metadata"`
	ContentHash    []byte          `db:"content_hash"`
	UpdatedAt      time.Time       `db:"updated_at"`
}

const documentCols = `id, project_id, ext_id, title, body, sentence_starts, metadata, content_hash, updated_at`

// ContentHash is the hash stored with a document; encoders use it to
// re-embed only documents whose text changed.
func ContentHash(title, body string) []byte {
	h := sha256.New()
	h.Write([]byte(title))
	h.Write([]byte{0})
	h.Write([]byte(body))
	return h.Sum(nil)
}

// DocumentByExtID fetches one document by its external id.
func (s *Store) DocumentByExtID(ctx context.Context, projectID int64, extID string) (Document, error) {
	if !storable(extID) {
		return Document{}, fmt.Errorf("store: document %q: %w", extID, ErrNotFound)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+documentCols+` FROM documents WHERE project_id = $1 AND ext_id = $2`, projectID, extID)
	return collectOne[Document](rows, fmt.Sprintf("document %q", extID))
}

// DocumentByID fetches one document by its row id.
func (s *Store) DocumentByID(ctx context.Context, id int64) (Document, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+documentCols+` FROM documents WHERE id = $1`, id)
	return collectOne[Document](rows, fmt.Sprintf("document %d", id))
}

// EachDocument streams a project's documents in id order to fn without
// loading them all at once.
func (s *Store) EachDocument(ctx context.Context, projectID int64, fn func(Document) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT `+documentCols+` FROM documents WHERE project_id = $1 ORDER BY id`, projectID)
	return forEachStruct(rows, "documents", fn)
}
