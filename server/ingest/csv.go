package ingest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"boolpool/server/store"
	"boolpool/server/textseg"
)

// CSV files carry a header row that says what they hold:
//
//	id,title,text                           documents
//	id,text[,template,domain,split,original_query]   queries
//	query_id,doc_id,relevance               qrels
//
// Columns may come in any order; unknown columns go into metadata.
func importCSV(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	rr := in.records("CSV record")
	rr.sep = ','
	cr := csv.NewReader(rr)
	cr.FieldsPerRecord = 0
	header, err := rr.csvRecord(cr, 1)
	if errors.Is(err, io.EOF) {
		return lineErr(in.name, 1, "", "empty file (want a header row)")
	}
	if err != nil {
		return err
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := col[h]; dup {
			return lineErr(in.name, 1, h, "column appears twice")
		}
		col[h] = i
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := col[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("query_id", "doc_id", "relevance"):
		res.Kind = "qrels"
	case has("id", "title", "text"):
		res.Kind = "documents"
	case has("id", "text"):
		res.Kind = "queries"
	default:
		return lineErr(in.name, 1, "", "header %s: want id,title,text (documents), id,text (queries) or query_id,doc_id,relevance (qrels)", quote(strings.Join(header, ",")))
	}
	known := map[string]bool{"id": true, "title": true, "text": true, "template": true, "domain": true, "split": true,
		"original_query": true, "query_id": true, "doc_id": true, "relevance": true}
	for line := 2; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rr.csvRecord(cr, line)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		get := func(n string) string {
			if i, ok := col[n]; ok {
				return rec[i]
			}
			return ""
		}
		md := map[string]string{}
		for h, i := range col {
			if !known[h] {
				md[h] = rec[i]
			}
		}
		mdb, _ := json.Marshal(md)
		im.At(line)
		switch res.Kind {
		case "documents":
			if get("id") == "" {
				return lineErr(in.name, line, "id", "empty")
			}
			err = im.Document(ctx, store.DocumentIn{ExtID: get("id"), Title: get("title"), Body: get("text"),
				SentenceStarts: textseg.Starts(get("text")), Metadata: mdb})
		case "queries":
			if get("id") == "" {
				return lineErr(in.name, line, "id", "empty")
			}
			if err := checkQueryText(in, line, "text", get("text")); err != nil {
				return err
			}
			_, err = im.Query(ctx, store.QueryIn{ExtID: get("id"), Text: get("text"), Template: get("template"),
				Domain: get("domain"), Split: get("split"), OriginalQuery: get("original_query"), Metadata: mdb, Seq: line})
		case "qrels":
			rel, perr := strconv.Atoi(strings.TrimSpace(get("relevance")))
			if perr != nil {
				return lineErr(in.name, line, "relevance", "not an integer: %s", quote(get("relevance")))
			}
			qid, ok, qerr := im.QueryID(ctx, get("query_id"))
			if qerr != nil {
				return qerr
			}
			if !ok {
				return lineErr(in.name, line, "query_id", "unknown query %s (import its queries first)", quote(get("query_id")))
			}
			err = im.Qrel(ctx, qid, get("doc_id"), rel, "positive", "qrels")
		}
		if err != nil {
			return err
		}
	}
}
