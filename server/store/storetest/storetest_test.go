package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// recordingTB is a testing.TB whose Failed answer is set by the test and
// whose cleanups and logs are recorded, so that URL's cleanup can be run
// as after a passed and after a failed test.
type recordingTB struct {
	testing.TB
	failed   bool
	cleanups []func()
	logs     []string
}

func (r *recordingTB) Failed() bool     { return r.failed }
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// dbName is the database named in dbURL.
func dbName(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// databaseExists reports whether the database of dbURL is on the server.
func databaseExists(t *testing.T, dbURL string) bool {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, dbName(t, dbURL)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestURLDropsOrKeeps: a passed test's database is dropped; a failed
// test's is kept and its URL logged (then dropped here by hand); with
// BOOLPOOL_KEEP_FAILED_DB=0 a failed test's database is dropped too.
func TestURLDropsOrKeeps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failed bool
		keep   string
		kept   bool
	}{
		{"passed", false, "1", false},
		{"failed, kept", true, "1", true},
		{"failed, KeepEnv=0", true, "0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(KeepEnv, tc.keep)
			r := &recordingTB{TB: t}
			u := URL(r)
			if !databaseExists(t, u) {
				t.Fatalf("URL's database %s does not exist", u)
			}
			r.failed = tc.failed
			r.runCleanups()
			if got := databaseExists(t, u); got != tc.kept {
				t.Fatalf("after the cleanup the database exists = %v, want %v (logs %q)", got, tc.kept, r.logs)
			}
			if !tc.kept {
				return
			}
			if len(r.logs) != 1 || !strings.Contains(r.logs[0], u) || !strings.Contains(r.logs[0], "kept") {
				t.Errorf("logs %q, want one naming the kept database %s", r.logs, u)
			}
			// Drop it as a developer would after looking.
			ctx := context.Background()
			c, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "DROP DATABASE "+pgx.Identifier{dbName(t, u)}.Sanitize()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestKeepFailed: only a failed test's database is kept; KeepEnv decides,
// and unset it keeps one except under CI=true.
func TestKeepFailed(t *testing.T) {
	for _, tc := range []struct {
		failed   bool
		keep, ci string
		want     bool
	}{
		{false, "1", "", false},
		{false, "", "", false},
		{true, "", "", true},
		{true, "", "true", false},
		{true, "1", "true", true},
		{true, "0", "", false},
	} {
		env := map[string]string{KeepEnv: tc.keep, "CI": tc.ci}
		if got := keepFailed(tc.failed, func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("keepFailed(failed %v, %s=%q, CI=%q) = %v, want %v", tc.failed, KeepEnv, tc.keep, tc.ci, got, tc.want)
		}
	}
}
