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

// KeepEnv names the environment variable that says what becomes of a
// failed test's database: "1" keeps it, "0" drops it. Unset, it is kept
// except under CI=true (where nobody is left to look at it).
const KeepEnv = "BOOLPOOL_KEEP_FAILED_DB"

// keepFailed reports whether a test's database is kept: only when the
// test failed, and then as KeepEnv (or CI) says.
func keepFailed(failed bool, getenv func(string) string) bool {
	if !failed {
		return false
	}
	switch getenv(KeepEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return getenv("CI") != "true"
}

// URL creates an empty database and returns its URL. The database is
// dropped when the test ends, unless the test failed: then it is kept for
// inspection and its URL logged (see KeepEnv). Tests fail (not skip)
// without DATABASE_URL: the store is never mocked.
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
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: parse DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		if keepFailed(t.Failed(), os.Getenv) {
			t.Logf("storetest: the test failed; its database is kept for inspection: psql '%s' (drop it with: psql '%s' -c 'DROP DATABASE %s'; %s=0 drops failed tests' databases)",
				u, base, name, KeepEnv)
			return
		}
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

// NewProject is New with one project called name in it.
func NewProject(t testing.TB, name string) (*store.Store, store.Project) {
	t.Helper()
	s := New(t)
	p, err := s.EnsureProject(context.Background(), name)
	if err != nil {
		t.Fatalf("storetest: project %s: %v", name, err)
	}
	return s, p
}

// WaitJob polls the job id every 20 ms until ok holds for it and returns
// it, failing the test (with the job's state and progress) after limit.
func WaitJob(t testing.TB, st *store.Store, id int64, limit time.Duration, ok func(store.Job) bool) store.Job {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		j, err := st.JobByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: still %s (%s %d/%d, error %q)", id, j.State, j.Phase, j.Done, j.Total, j.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Column runs a query of one column (SQL written for a test's checks)
// and returns its values, failing the test on an error.
func Column[T any](t testing.TB, st *store.Store, sql string, args ...any) []T {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Queries imports qs into the project in order (Seq is each one's index)
// and returns their ids by ExtID.
func Queries(t testing.TB, s *store.Store, projectID int64, qs []store.QueryIn) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	ids := make(map[string]int64, len(qs))
	_, err := s.Import(ctx, projectID, func(im *store.Importer) error {
		for i, q := range qs {
			q.Seq = i
			id, err := im.Query(ctx, q)
			if err != nil {
				return err
			}
			ids[q.ExtID] = id
		}
		return nil
	})
	if err != nil {
		t.Fatalf("storetest: import queries: %v", err)
	}
	return ids
}
