package store

import (
	"context"
	"io"
)

// NearestSQL exposes NearestDocuments' query to the tests (its plan).
var NearestSQL = nearestSQL

// SaveLexicalIndexChunks is SaveLexicalIndex with chunks of at most
// chunkSize bytes, so the tests store an index of many chunks without
// writing 32 MiB.
func (s *Store) SaveLexicalIndexChunks(ctx context.Context, info LexicalIndexInfo, encode func(w io.Writer) error, chunkSize int) (int64, error) {
	return s.saveLexicalIndex(ctx, info, encode, chunkSize)
}
