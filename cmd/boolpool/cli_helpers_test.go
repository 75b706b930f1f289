package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// cliTest is one CLI test's world: a fresh database, migrated with
// `boolpool migrate`, and a directory for the input files.
type cliTest struct {
	t   *testing.T
	ctx context.Context
	db  string // the database's URL
	dir string
}

func newCLITest(t *testing.T) *cliTest {
	t.Helper()
	c := &cliTest{t: t, ctx: context.Background(), db: storetest.URL(t), dir: t.TempDir()}
	c.must("migrate")
	return c
}

// write puts body in the test's directory as name and returns its path.
func (c *cliTest) write(name, body string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// store opens the test's database (closed when the test ends).
func (c *cliTest) store() *store.Store {
	c.t.Helper()
	st, err := store.Open(c.ctx, c.db, 2)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(st.Close)
	return st
}

// questWithBM25 imports docs and queries (QUEST JSON lines) as project p,
// indexes it and stores its bm25 run as "bm25".
func (c *cliTest) questWithBM25(docs, queries string) {
	c.t.Helper()
	c.must("import", "--project", "p", "--format", "quest", c.write("docs.jsonl", docs), c.write("q.jsonl", queries))
	c.must("index", "--project", "p")
	c.must("retrieve", "--project", "p", "--method", "bm25", "--name", "bm25")
}

// exec runs `boolpool args...` with --database-url after the command words
// (before the first flag) and returns its output and exit code.
func (c *cliTest) exec(args ...string) (stdout, stderr string, code int) {
	i := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") })
	if i < 0 {
		i = len(args)
	}
	full := slices.Concat(args[:i], []string{"--database-url", c.db}, args[i:])
	var out, errb bytes.Buffer
	code = run(c.ctx, full, &out, &errb)
	return out.String(), errb.String(), code
}

// must is exec that fails the test unless the command exits 0.
func (c *cliTest) must(args ...string) (stdout, stderr string) {
	c.t.Helper()
	out, errs, code := c.exec(args...)
	if code != 0 {
		c.t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	return out, errs
}

// needEncoders skips the test unless the encoder cache ($BOOLPOOL_CACHE,
// else the repository's .cache) holds the files (or BOOLPOOL_ORT_LIB
// names the runtime); hint says how to get them.
func needEncoders(t *testing.T, hint string, files ...string) {
	t.Helper()
	cache := encoderCache()
	for _, p := range files {
		if _, err := os.Stat(filepath.Join(cache, p)); err != nil && os.Getenv("BOOLPOOL_ORT_LIB") == "" {
			t.Skipf("skipping: %v (%s)", err, hint)
		}
	}
}

// encoderCache is the encoder cache: $BOOLPOOL_CACHE, else the
// repository's .cache.
func encoderCache() string {
	if cache := os.Getenv("BOOLPOOL_CACHE"); cache != "" {
		return cache
	}
	return filepath.Join("..", "..", ".cache")
}

// tokenizerCache is the encoder cache, as an absolute path, when it holds
// the MiniLM tokenizer (the lexical encoder's); else the test is skipped.
func tokenizerCache(t *testing.T) string {
	t.Helper()
	cache := encoderCache()
	if _, err := os.Stat(filepath.Join(cache, "models", "minilm-fp16", "tokenizer.json")); err != nil {
		t.Skipf("skipping: %v (run scripts/fetch-models.sh)", err)
	}
	abs, err := filepath.Abs(cache)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
