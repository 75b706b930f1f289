package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"boolpool/server/store"
	"boolpool/server/trecfmt"
)

func importTRECTopics(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	res.Kind = "queries"
	rr := in.records("topic")
	tr := trecfmt.NewTopicsReader(rr, in.name)
	ids, err := importIDMaps(ctx, im)
	if err != nil {
		return err
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rr.next()
		t, err := tr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		text := t.Title
		if text == "" {
			text = t.Description
		}
		field := "title"
		if t.Title == "" {
			field = "desc"
		}
		if err := checkQueryText(in, tr.Line(), field, text); err != nil {
			return err
		}
		im.At(tr.Line())
		md, _ := json.Marshal(map[string]string{"description": t.Description, "narrative": t.Narrative})
		if _, err := im.Query(ctx, store.QueryIn{ExtID: ids.Queries.Decode(t.ID), Text: text, Metadata: md, Seq: n}); err != nil {
			return err
		}
	}
}

func importTRECQrels(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	res.Kind = "qrels"
	qr := trecfmt.NewQrelsReader(in.r, in.name)
	ids, err := importIDMaps(ctx, im)
	if err != nil {
		return err
	}
	return eachTRECLine(ctx, im, in, ids, qr, func(q trecfmt.Qrel) string { return q.QueryID },
		func(q trecfmt.Qrel, qid int64, line int) error {
			im.At(line)
			return im.Qrel(ctx, qid, ids.Docs.Decode(q.DocID), q.Rel, "positive", "qrels")
		})
}

func importTRECRun(ctx context.Context, im *store.Importer, in *input, res *Result, name string) error {
	res.Kind = "run"
	if name == "" {
		name = baseName(in.name)
	}
	runID, err := im.Run(ctx, name, "imported", nil)
	if err != nil {
		return err
	}
	ids, err := importIDMaps(ctx, im)
	if err != nil {
		return err
	}
	rr := trecfmt.NewRunReader(in.r, in.name)
	seen := map[[2]string]bool{}
	return eachTRECLine(ctx, im, in, ids, rr, func(l trecfmt.RunLine) string { return l.QueryID },
		func(l trecfmt.RunLine, qid int64, line int) error {
			l.QueryID, l.DocID = ids.Queries.Decode(l.QueryID), ids.Docs.Decode(l.DocID)
			key := [2]string{l.QueryID, l.DocID}
			if seen[key] {
				return lineErr(in.name, line, "docno", "document %s listed twice for query %s", quote(l.DocID), quote(l.QueryID))
			}
			seen[key] = true
			return im.RunResult(ctx, runID, qid, l.DocID, l.Rank, l.Score)
		})
}

// eachTRECLine calls fn with each record r reads (a qrels or run line),
// checking ctx first, its query's row id and its line; qidOf gives the
// record's query id as written (a TREC id), and a query the project does
// not have is refused.
func eachTRECLine[T any](ctx context.Context, im *store.Importer, in *input, ids trecfmt.IDMaps,
	r interface {
		Read() (T, error)
		Line() int
	}, qidOf func(T) string, fn func(rec T, qid int64, line int) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		qid, ok, err := im.QueryID(ctx, ids.Queries.Decode(qidOf(rec)))
		if err != nil {
			return err
		}
		if !ok {
			return lineErr(in.name, r.Line(), "qid", "unknown query %s (import its queries first)", quote(qidOf(rec)))
		}
		if err := fn(rec, qid, r.Line()); err != nil {
			return err
		}
	}
}

// importIDMaps are the project's TREC id maps (trecfmt's id rule, issue
// 25) as the import's transaction sees them: tokens of the project's own
// TREC exports, and the plain "_ for white space" form of other tools, read
// back as the project's ids.
func importIDMaps(ctx context.Context, im *store.Importer) (trecfmt.IDMaps, error) {
	return trecfmt.BuildIDMaps(
		func(kind string) ([]string, error) { return im.TRECIDCandidates(ctx, kind) },
		func(kind string, ids []string) (map[string]bool, error) { return im.ExistingTRECIDs(ctx, kind, ids) })
}
