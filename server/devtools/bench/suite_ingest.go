package bench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"boolpool/server/export"
	"boolpool/server/ingest"
)

// IngestSuite measures document import and export throughput against the
// database's own bulk path (COPY of the same rows into a scratch table),
// measured in the same run.
func IngestSuite() Suite {
	return Suite{Name: "ingest", Run: runIngest}
}

func runIngest(ctx context.Context, env *Env) ([]Row, error) {
	docsPath := ""
	if env.SharedData != "" {
		docsPath = filepath.Join(env.SharedData, "debquest", "documents.jsonl.gz")
	}
	if _, err := os.Stat(docsPath); docsPath == "" || err != nil {
		docsPath = filepath.Join("server", "demo", "data", "documents.jsonl.gz")
	}
	titles, bodies, err := readDocs(docsPath)
	if err != nil {
		return nil, err
	}
	n := float64(len(titles))
	repeats := env.Repeats
	if env.Quick {
		repeats = 1
	}
	var rows []Row
	i := 0
	importSec, err := Time(repeats, func() error {
		i++
		p, err := env.Store.EnsureProject(ctx, fmt.Sprintf("bench-ingest-%d", i))
		if err != nil {
			return err
		}
		_, err = ingest.Files(ctx, env.Store, p.ID, "quest", []string{docsPath}, ingest.Options{})
		return err
	})
	if err != nil {
		return nil, err
	}
	copySec, err := Time(repeats, func() error {
		return pgx.BeginFunc(ctx, env.Store.Pool(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE bench_copy (title text, body text) ON COMMIT DROP`); err != nil {
				return err
			}
			k := 0
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_copy"}, []string{"title", "body"}, pgx.CopyFromFunc(func() ([]any, error) {
				if k >= len(titles) {
					return nil, nil
				}
				k++
				return []any{titles[k-1], bodies[k-1]}, nil
			}))
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	rows = append(rows, Row{Suite: "ingest", Name: fmt.Sprintf("import %s (%d docs, upsert + sentences, 1 tx)", filepath.Base(docsPath), len(titles)),
		Value: n / importSec, Unit: "docs/s", HigherIsBetter: true, Note: fmt.Sprintf("%.1f s per import", importSec)}.
		WithRef("raw COPY of the same rows", n/copySec))

	p, err := env.Store.ProjectByName(ctx, "bench-ingest-1")
	if err != nil {
		return nil, err
	}
	var bytesOut int64
	exportSec, err := Time(repeats, func() error {
		cw := &countWriter{}
		_, err := export.Write(ctx, env.Store, p.ID, "quest-documents", cw, export.Options{})
		bytesOut = cw.n
		return err
	})
	if err != nil {
		return nil, err
	}
	copyOutSec, err := Time(repeats, func() error {
		conn, err := env.Store.Pool().Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		_, err = conn.Conn().PgConn().CopyTo(ctx, io.Discard, fmt.Sprintf(`COPY (SELECT ext_id, body FROM documents WHERE project_id = %d ORDER BY id) TO STDOUT`, p.ID))
		return err
	})
	if err != nil {
		return nil, err
	}
	rows = append(rows, Row{Suite: "ingest", Name: "export quest-documents (streamed)", Value: n / exportSec, Unit: "docs/s",
		HigherIsBetter: true, Note: fmt.Sprintf("%.1f MB/s", float64(bytesOut)/1e6/exportSec)}.
		WithRef("COPY TO STDOUT of the same rows", n/copyOutSec))
	rep, err := repeatedQrels(ctx, env, repeats)
	if err != nil {
		return nil, err
	}
	return append(rows, rep), nil
}

// repeatedQrels times 40,000 identical qrel lines against 40,000
// distinct ones (issue 29: 11.5 s vs 0.7 s when every line upserted the
// same row again in one transaction).
func repeatedQrels(ctx context.Context, env *Env, repeats int) (Row, error) {
	dir, err := os.MkdirTemp("", "boolpool-bench-qrels-")
	if err != nil {
		return Row{}, err
	}
	defer os.RemoveAll(dir)
	var same, distinct bytes.Buffer
	for i := 0; i < 40000; i++ {
		same.WriteString("q1 0 d1 1\n")
		fmt.Fprintf(&distinct, "q1 0 d%d 1\n", i)
	}
	files := map[string][]byte{"queries.csv": []byte("id,text\nq1,cats\n"), "same.txt": same.Bytes(), "distinct.txt": distinct.Bytes()}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return Row{}, err
		}
	}
	p, err := env.Store.EnsureProject(ctx, "bench-repeated-qrels")
	if err != nil {
		return Row{}, err
	}
	if _, err := ingest.Files(ctx, env.Store, p.ID, "csv", []string{filepath.Join(dir, "queries.csv")}, ingest.Options{NoDecompose: true}); err != nil {
		return Row{}, err
	}
	timeOf := func(name string) (float64, error) {
		return Time(max(repeats, 3), func() error {
			_, err := ingest.Files(ctx, env.Store, p.ID, "trec-qrels", []string{filepath.Join(dir, name)}, ingest.Options{})
			return err
		})
	}
	distinctSec, err := timeOf("distinct.txt")
	if err != nil {
		return Row{}, err
	}
	sameSec, err := timeOf("same.txt")
	if err != nil {
		return Row{}, err
	}
	row := Row{Suite: "ingest", Name: "import 40,000 identical qrel lines (trec-qrels, 1 tx)", Value: sameSec, Unit: "s",
		Note: "one row written, 39,999 duplicates reported"}.WithRef("40,000 distinct qrel lines", distinctSec)
	return row.WithTarget("<= 2x the distinct lines", sameSec <= 2*distinctSec), nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func readDocs(path string) (titles, bodies []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, nil, err
		}
		titles = append(titles, d.Title)
		bodies = append(bodies, d.Text)
	}
	return titles, bodies, sc.Err()
}
