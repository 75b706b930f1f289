package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/encoders"
	"boolpool/server/bench"
	"boolpool/server/retrieval/retrievalbench"
	"boolpool/server/store"
)

// benchSuites lists every suite 'boolpool bench' knows, in run order.
func benchSuites() []bench.Suite {
	return []bench.Suite{
		bench.IngestSuite(),
		bench.EncodersSuite(),
		retrievalbench.Suite(),
		bench.LoadSuite(),
		bench.CrashSuite(),
		bench.LiveSuite(),
		bench.WebSuite(),
	}
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := dbFlag(fs)
	out := fs.String("out", "bench/results.md", "also write the table here ('' = don't)")
	only := fs.String("suites", "", "comma-separated suites to run (default all)")
	repeats := fs.Int("repeats", 5, "repeats per measurement (medians are reported)")
	quick := fs.Bool("quick", false, "one repeat and smaller inputs (smoke test)")
	shared := fs.String("shared-data", os.Getenv("BOOLPOOL_SHARED_DATA"), "the shared data directory (enables full-corpus suites)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dbURL == "" {
		return fmt.Errorf("%w: no database: set DATABASE_URL or pass --database-url", errUsage)
	}
	benchURL, err := freshDatabase(ctx, *dbURL, "boolpool_bench")
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, benchURL, 64)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	cache := encoders.DefaultCacheDir()
	env := &bench.Env{Store: st, DBURL: benchURL, SharedData: *shared, CacheDir: cache, Repeats: *repeats, Quick: *quick,
		Log: slog.New(slog.NewTextHandler(stderr, nil)), Progress: stderr}
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	start := time.Now()
	var rows []bench.Row
	var failed []string
	for _, s := range benchSuites() {
		if len(want) > 0 && !want[s.Name] {
			continue
		}
		fmt.Fprintf(stderr, "bench: %s …\n", s.Name)
		t0 := time.Now()
		rs, err := s.Run(ctx, env)
		if err != nil {
			failed = append(failed, s.Name)
			rows = append(rows, bench.Row{Suite: s.Name, Name: "FAILED", Note: err.Error()})
			fmt.Fprintf(stderr, "bench: %s failed: %v\n", s.Name, err)
			continue
		}
		fmt.Fprintf(stderr, "bench: %s done in %s\n", s.Name, time.Since(t0).Round(time.Millisecond))
		rows = append(rows, rs...)
	}
	info := bench.MachineInfo()
	bench.Markdown(stdout, rows, info, time.Since(start))
	if *out != "" {
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		bench.Markdown(f, rows, info, time.Since(start))
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench: table written to %s\n", *out)
	}
	if len(failed) > 0 {
		return fmt.Errorf("suites failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// freshDatabase drops and recreates database name on the server of base
// and returns its URL.
func freshDatabase(ctx context.Context, base, name string) (string, error) {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}
