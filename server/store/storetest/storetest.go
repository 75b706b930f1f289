// Package storetest gives tests a fresh, migrated PostgreSQL database of
// their own on the server named by DATABASE_URL (make test starts one).
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/store"
)

// URL creates an empty database and returns its URL; the database is dropped
// when the test ends. Tests fail (not skip) without DATABASE_URL: the store
// is never mocked.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests through 'make test', which starts PostgreSQL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("storetest: connect %s: %v", base, err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "boolpool_t_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("storetest: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("storetest: drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: parse DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// New returns a store on a fresh, fully migrated database.
func New(t testing.TB) *store.Store {
	t.Helper()
	s, _ := NewWithURL(t)
	return s
}

// NewWithURL is New that also returns the database's URL (for tests that
// run a command against the same database).
func NewWithURL(t testing.TB) (*store.Store, string) {
	t.Helper()
	u := URL(t)
	ctx := context.Background()
	s, err := store.Open(ctx, u, 20)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(s.Close)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("storetest: migrate: %v", err)
	}
	return s, u
}
