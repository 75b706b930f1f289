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

// NewHeldJudgmentBatcher is a JudgmentBatcher whose writer has not
// started: judgments queue until start is called, so a test can make one
// batch of many. Close it as any other (after start).
func NewHeldJudgmentBatcher(st *Store) (b *JudgmentBatcher, start func()) {
	b = newJudgmentBatcher(st, nil)
	return b, func() { go b.run() }
}

// Queued is how many judgments wait for the writer.
func (b *JudgmentBatcher) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// CurrentJudgmentsOfItems and CurrentJudgmentsOfItem expose the consensus
// refresh's reads of current judgments (compared with the view).
const (
	CurrentJudgmentsOfItems = currentJudgmentsOfItems
	CurrentJudgmentsOfItem  = currentJudgmentsOfItem
)
