package store

import "context"

// NearestSQL exposes NearestDocuments' query to the tests (its plan).
var NearestSQL = nearestSQL

// HNSWMemoryCapMB exposes the database's cap on one HNSW build's memory.
func (s *Store) HNSWMemoryCapMB(ctx context.Context) (int64, error) { return s.hnswMemoryCapMB(ctx) }
