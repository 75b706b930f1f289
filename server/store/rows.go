package store

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// How this package reads rows. Each reader takes the rows of a query
// written out at the call site (`rows, _ := s.pool.Query(ctx, sql, args...)`:
// pgx hands a failed query's error back from rows.Err), closes them, and
// wraps any error as "store: <what>: …", what naming the rows read.

// collectOne reads the only row into a T by column name (pgx's
// RowToStructByName); no row is ErrNotFound.
func collectOne[T any](rows pgx.Rows, what string) (T, error) {
	v, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[T])
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("store: %s: %w", what, err)
	}
	return v, nil
}

// collectAll reads every row into a T by column name; no row is an empty,
// non-nil slice.
func collectAll[T any](rows pgx.Rows, what string) ([]T, error) {
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[T])
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return out, nil
}

// collectMap reads rows of two columns, a key and its value, into a map;
// a later row of the same key wins.
func collectMap[K comparable, V any](rows pgx.Rows, what string) (map[K]V, error) {
	out := map[K]V{}
	var k K
	var v V
	err := forEach(rows, what, func() error {
		out[k] = v
		return nil
	}, &k, &v)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEach scans each row into dest and then calls fn, which reads dest.
// An error of fn stops the loop and is returned as it is. The same dest
// takes every row (as with pgx.ForEachRow): fn copies what it keeps.
func forEach(rows pgx.Rows, what string, fn func() error, dest ...any) error {
	return loop(rows, what, func() error { return rows.Scan(dest...) }, fn)
}

// forEachStruct reads each row into a T by column name and calls fn with
// it. An error of fn stops the loop and is returned as it is.
func forEachStruct[T any](rows pgx.Rows, what string, fn func(T) error) error {
	var v T
	read := func() (err error) {
		v, err = pgx.RowToStructByName[T](rows)
		return err
	}
	return loop(rows, what, read, func() error { return fn(v) })
}

// scanAll reads each row into a T through the fields of it that fields
// names (in the row's column order): one element a row, nil for none.
func scanAll[T any](rows pgx.Rows, what string, fields func(*T) []any) ([]T, error) {
	var out []T
	var v T
	err := forEach(rows, what, func() error {
		out = append(out, v)
		return nil
	}, fields(&v)...)
	return out, err
}

// objectOrEmpty is v, or the empty JSON object for nil: what a NOT NULL
// jsonb column gets instead of NULL.
func objectOrEmpty(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage(`{}`)
	}
	return v
}

// nonNil is v, or an empty slice for nil: what a NOT NULL array column
// gets instead of NULL.
func nonNil[S ~[]E, E any](v S) S {
	if v == nil {
		return S{}
	}
	return v
}

// collectSets reads rows of (id, external id, bool) into id → external id
// → bool: a label, or true for a set member.
func collectSets(rows pgx.Rows, what string) (map[int64]map[string]bool, error) {
	out := map[int64]map[string]bool{}
	var (
		id  int64
		ext string
		v   bool
	)
	err := forEach(rows, what, func() error {
		if out[id] == nil {
			out[id] = map[string]bool{}
		}
		out[id][ext] = v
		return nil
	}, &id, &ext, &v)
	return out, err
}

func loop(rows pgx.Rows, what string, read, fn func() error) error {
	defer rows.Close()
	for rows.Next() {
		if err := read(); err != nil {
			return fmt.Errorf("store: %s: %w", what, err)
		}
		if err := fn(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}
