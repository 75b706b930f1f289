package ingest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"boolpool/server/store"
	"boolpool/server/textseg"
)

// importBEIR imports a BEIR dataset directory (corpus.jsonl, queries.jsonl,
// qrels/*.tsv) or single BEIR files, each file in its own transaction, in
// dependency order: corpus, queries, then qrels.
func importBEIR(ctx context.Context, st *store.Store, projectID int64, path string, opt Options) ([]Result, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	var files []string
	if fi.IsDir() {
		for _, n := range []string{"corpus.jsonl", "corpus.jsonl.gz", "queries.jsonl", "queries.jsonl.gz"} {
			if _, err := os.Stat(filepath.Join(path, n)); err == nil {
				files = append(files, filepath.Join(path, n))
			}
		}
		tsvs, _ := filepath.Glob(filepath.Join(path, "qrels", "*.tsv"))
		sort.Strings(tsvs)
		for _, t := range tsvs {
			// qrels/<split>.source.tsv is the export's sidecar naming each
			// qrel's source (derived qrels, issue 13), not a split.
			if !strings.HasSuffix(t, ".source.tsv") {
				files = append(files, t)
			}
		}
		if len(files) == 0 {
			return nil, &LineError{File: path, Reason: "no corpus.jsonl, queries.jsonl or qrels/*.tsv in this directory"}
		}
	} else {
		files = []string{path}
	}
	var results []Result
	for _, f := range files {
		in, err := openInput(f, opt)
		if err != nil {
			return results, err
		}
		res := Result{File: f, Format: "beir"}
		base := filepath.Base(f)
		counts, dupLines, err := st.ImportReport(ctx, projectID, func(im *store.Importer) error {
			switch {
			case strings.HasPrefix(base, "corpus"):
				res.Kind = "documents"
				return beirCorpus(ctx, im, in, &res)
			case strings.HasPrefix(base, "queries"):
				res.Kind = "queries"
				return beirQueries(ctx, im, in, &res)
			case strings.HasSuffix(base, ".tsv"):
				res.Kind = "qrels"
				return beirQrels(ctx, im, in)
			default:
				return &LineError{File: f, Reason: "not a BEIR file (corpus.jsonl, queries.jsonl or qrels/*.tsv)"}
			}
		})
		in.Close()
		res.Counts = counts
		if err != nil {
			return results, asLineError(err)
		}
		res.noteDuplicates(dupLines)
		results = append(results, res)
	}
	return results, nil
}

// beirCorpus reads corpus.jsonl: {"_id", "title", "text", "metadata"} per
// record (JSON lines or one JSON array); other fields are reported as
// ignored.
func beirCorpus(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	return in.eachRecord(ctx, im, func(rec jsonRecord) error {
		var d struct {
			ID       *string         `json:"_id"`
			Title    string          `json:"title"`
			Text     *string         `json:"text"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := decodeObject(in, rec.Raw, []string{"_id", "title", "text", "metadata"}, &d, res); err != nil {
			return err
		}
		if d.ID == nil || *d.ID == "" {
			return lineErr(in.name, in.line, "_id", "missing or empty")
		}
		if d.Text == nil {
			return lineErr(in.name, in.line, "text", "missing")
		}
		if len(d.Metadata) == 0 || string(d.Metadata) == "null" {
			d.Metadata = json.RawMessage(`{}`)
		}
		d.Metadata = oneLine(d.Metadata)
		return im.Document(ctx, store.DocumentIn{ExtID: *d.ID, Title: d.Title, Body: *d.Text,
			SentenceStarts: textseg.Starts(*d.Text), Metadata: d.Metadata})
	})
}

// beirQueries reads queries.jsonl: {"_id", "text", "metadata"} per record
// (JSON lines or one JSON array); other fields are reported as ignored.
func beirQueries(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	return in.eachRecord(ctx, im, func(rec jsonRecord) error {
		var q struct {
			ID       *string         `json:"_id"`
			Text     *string         `json:"text"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := decodeObject(in, rec.Raw, []string{"_id", "text", "metadata"}, &q, res); err != nil {
			return err
		}
		if q.ID == nil || *q.ID == "" {
			return lineErr(in.name, in.line, "_id", "missing or empty")
		}
		if q.Text == nil {
			return lineErr(in.name, in.line, "text", "missing")
		}
		if err := checkQueryText(in, in.line, "text", *q.Text); err != nil {
			return err
		}
		if len(q.Metadata) == 0 || string(q.Metadata) == "null" {
			q.Metadata = json.RawMessage(`{}`)
		}
		q.Metadata = oneLine(q.Metadata)
		_, err := im.Query(ctx, store.QueryIn{ExtID: *q.ID, Text: *q.Text, Metadata: q.Metadata, Seq: rec.Seq})
		return err
	})
}

func beirQrels(ctx context.Context, im *store.Importer, in *input) error {
	rr := in.records("qrels record")
	rr.sep = '\t'
	cr := csv.NewReader(rr)
	cr.Comma = '\t'
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rr.csvRecord(cr, n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 1 && len(rec) > 0 && rec[0] == "query-id" {
			continue
		}
		if len(rec) != 3 {
			return lineErr(in.name, n, "", "want 3 tab-separated fields (query-id, corpus-id, score), got %d", len(rec))
		}
		score, err := strconv.Atoi(strings.TrimSpace(rec[2]))
		if err != nil {
			return lineErr(in.name, n, "score", "not an integer: %s", quote(rec[2]))
		}
		qid, ok, err := im.QueryID(ctx, rec[0])
		if err != nil {
			return err
		}
		if !ok {
			return lineErr(in.name, n, "query-id", "unknown query %s (import queries.jsonl first)", quote(rec[0]))
		}
		im.At(n)
		if err := im.Qrel(ctx, qid, rec[1], score, "positive", "qrels"); err != nil {
			return err
		}
	}
}
