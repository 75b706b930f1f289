// Package store is boolpool's only home for SQL: plain statements over a pgx
// connection pool, one file per table. Every I/O method takes ctx first.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"boolpool/server/apperr"
)

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = apperr.ErrNotFound

// ErrConflict is returned when a write violates a uniqueness rule.
var ErrConflict = apperr.ErrConflict

// Store wraps the connection pool.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to databaseURL and registers the pgvector types on every
// connection. It does not migrate.
func Open(ctx context.Context, databaseURL string, maxConns int32) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: parse database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		// The extension may not exist yet on a brand-new database; migrate
		// creates it and reconnects.
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return nil
		}
		return pgxvec.RegisterTypes(ctx, conn)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close releases all connections.
func (s *Store) Close() { s.pool.Close() }

// Pool exposes the pool to packages that stream (COPY) large data.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// InTx runs fn in one transaction, committed when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// maxTxAttempts bounds how often retryAborted runs a transaction.
const maxTxAttempts = 3

// retryAborted runs fn, one whole transaction (or one statement or
// pipelined batch, an implicit one), again while Postgres aborts it as a
// deadlock victim (40P01) or a serialization failure (40001), at most
// maxTxAttempts times in all: Postgres rolled it back, so nothing of it
// was kept and running it again is safe. Concurrent task fetches lock
// items through the taken trigger in no fixed order (their expiry of
// other raters' run-out leases), so two of them can meet in a deadlock;
// the victim is fetched again instead of answered with a 500.
func retryAborted(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !isAbortedTx(err) || attempt == maxTxAttempts || ctx.Err() != nil {
			return err
		}
	}
}

func isAbortedTx(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// storable reports whether s can be stored in or compared with a text
// column: PostgreSQL rejects NUL bytes and invalid UTF-8 with an error, so
// lookups by such a key are answered "not found" instead.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
