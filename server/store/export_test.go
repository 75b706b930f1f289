package store

import (
	"context"
	"io"
)

// NearestSQL exposes NearestDocuments' query to the tests (its plan).
var NearestSQL = nearestSQL

// HNSWMemoryCapMB exposes the database's cap on one HNSW build's memory.
func (s *Store) HNSWMemoryCapMB(ctx context.Context) (int64, error) { return s.hnswMemoryCapMB(ctx) }

// SaveLexicalIndexChunks is SaveLexicalIndex with chunks of at most
// chunkSize bytes, so the tests store an index of many chunks without
// writing 32 MiB.
func (s *Store) SaveLexicalIndexChunks(ctx context.Context, info LexicalIndexInfo, encode func(w io.Writer) error, chunkSize int) (int64, error) {
	return s.saveLexicalIndex(ctx, info, encode, chunkSize)
}
