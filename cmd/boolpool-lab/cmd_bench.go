package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/encoders"
	"boolpool/server/app"
	"boolpool/server/devtools/atomsbench"
	"boolpool/server/devtools/bench"
	"boolpool/server/devtools/calbench"
	"boolpool/server/devtools/estimatebench"
	"boolpool/server/devtools/retrievalbench"
	"boolpool/server/devtools/scalebench"
	"boolpool/server/store"
)

// benchSuites lists every suite 'boolpool-lab bench' knows, in run order. The
// scale suite (scaleSizes documents) runs only when named.
func benchSuites(scaleSizes []int) []bench.Suite {
	return []bench.Suite{
		bench.IngestSuite(),
		bench.UploadsSuite(),
		bench.EncodersSuite(),
		bench.EncoderSpeedSuite(),
		retrievalbench.Suite(),
		retrievalbench.NegationSuite(),
		retrievalbench.RunStoreSuite(),
		calbench.Suite(),
		atomsbench.Suite(),
		estimatebench.Suite(),
		bench.LoadSuite(),
		bench.CrashSuite(),
		bench.LoginSuite(),
		bench.LiveSuite(),
		bench.WebSuite(),
		bench.QualitySuite(),
		scalebench.Suite(scaleSizes),
	}
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL; 'make db' prints one)")
	out := fs.String("out", "bench/results.md", "also write the table here ('' = don't)")
	only := fs.String("suites", "", "comma-separated suites to run (default all)")
	repeats := fs.Int("repeats", 5, "repeats per measurement (medians are reported)")
	quick := fs.Bool("quick", false, "one repeat and smaller inputs (smoke test)")
	shared := fs.String("shared-data", os.Getenv("BOOLPOOL_SHARED_DATA"), "the shared data directory (enables full-corpus suites)")
	profiles := fs.String("profile-dir", "", "write CPU and allocation profiles of the load suite's servers under saturated load here ('' = none)")
	serverBin := fs.String("server-bin", defaultServerBin(), "the server binary the load, crash, uploads and login suites start (default: boolpool beside this binary)")
	sizes := fs.String("scale-sizes", "100000,300000,1000000", "corpus sizes (documents) of the scale suite, comma-separated")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var scaleSizes []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1000 {
			return fmt.Errorf("%w: --scale-sizes: %q is not a size of at least 1000 documents", errUsage, f)
		}
		scaleSizes = append(scaleSizes, n)
	}
	if *dbURL == "" {
		return fmt.Errorf("%w: no database: set DATABASE_URL or pass --database-url", errUsage)
	}
	if *serverBin != "" {
		if _, err := os.Stat(*serverBin); err != nil {
			return fmt.Errorf("%w: --server-bin: %v", errUsage, err)
		}
	}
	// A database of this run's own: two bench runs on one server (or a
	// bench next to the tests) must not drop each other's data.
	benchURL, drop, err := freshDatabase(ctx, *dbURL, fmt.Sprintf("boolpool_bench_%d", os.Getpid()))
	if err != nil {
		return err
	}
	defer drop()
	st, err := store.Open(ctx, benchURL, 64)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	runtime, release := bench.SharedRuntime(func() (*encoders.Runtime, error) {
		return app.OpenRuntime(encoders.Config{CacheDir: encoders.DefaultCacheDir()})
	})
	defer release()
	env := &bench.Env{Store: st, DBURL: benchURL, SharedData: *shared, Runtime: runtime, OpenRuntime: app.OpenRuntime, Repeats: *repeats, Quick: *quick,
		Log: slog.New(slog.NewTextHandler(stderr, nil)), Progress: stderr, ProfileDir: *profiles, ServerBin: *serverBin}
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	start := time.Now()
	var rows []bench.Row
	var failed []string
	for _, s := range benchSuites(scaleSizes) {
		if len(want) > 0 && !want[s.Name] || len(want) == 0 && s.Name == scalebench.Name {
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

// defaultServerBin is the boolpool binary in this binary's directory
// (make bench builds both into bin/), or "" when there is none.
func defaultServerBin() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	bin := filepath.Join(filepath.Dir(self), "boolpool")
	if _, err := os.Stat(bin); err != nil {
		return ""
	}
	return bin
}

// freshDatabase drops and recreates database name on the server of base
// and returns its URL and a function that drops it again.
func freshDatabase(ctx context.Context, base, name string) (string, func(), error) {
	ident := pgx.Identifier{name}.Sanitize()
	exec := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return "", nil, fmt.Errorf("drop %s: %w", name, err)
	}
	if err := exec(ctx, "CREATE DATABASE "+ident); err != nil {
		return "", nil, fmt.Errorf("create %s: %w", name, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)")
	}
	return u.String(), drop, nil
}
