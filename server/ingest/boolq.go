package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"boolpool/server/store"
	"boolpool/server/textseg"
)

// BoolQuestions records (DPR style), one per line or as one JSON array:
//
//	{"id"|"qid", "question"|"query", "question_type": "and"|"or"|"not",
//	 "positive_ctxs": [{"title","text","passage_id"|"psg_id"|"id"}],
//	 "negative_ctxs": [...], "hard_negative_ctxs": [...]}
//
// A context's document id is its passage id, or its title when it has none.
// Positive contexts become relevance-1 qrels; negative_ctxs become explicit
// negatives (qrels of kind "negative"), the documents NegRecall counts.
type boolqCtx struct {
	Title     string          `json:"title"`
	Text      string          `json:"text"`
	PassageID json.RawMessage `json:"passage_id"`
	PsgID     json.RawMessage `json:"psg_id"`
	ID        json.RawMessage `json:"id"`
}

type boolqRecord struct {
	ID           json.RawMessage `json:"id"`
	QID          json.RawMessage `json:"qid"`
	Question     string          `json:"question"`
	Query        string          `json:"query"`
	QuestionType string          `json:"question_type"`
	Positive     []boolqCtx      `json:"positive_ctxs"`
	Negative     []boolqCtx      `json:"negative_ctxs"`
	HardNegative []boolqCtx      `json:"hard_negative_ctxs"`
}

func rawID(r json.RawMessage) string {
	if len(r) == 0 || string(r) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(r))
}

func (c boolqCtx) docID() string {
	for _, r := range []json.RawMessage{c.PassageID, c.PsgID, c.ID} {
		if id := rawID(r); id != "" {
			return id
		}
	}
	return c.Title
}

// arrayErr reports a failed read of a JSON array: a *LineError of the
// text reader (a bad or over-long line) as it is, under field; other
// errors as invalid JSON.
func arrayErr(in *input, field, what string, err error) error {
	if le := (*LineError)(nil); errors.As(err, &le) {
		return &LineError{File: le.File, Line: le.Line, Field: field, Reason: le.Reason}
	}
	return lineErr(in.name, 0, field, "%s: %v", what, err)
}

func importBoolQ(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	res.Kind = "queries"
	first, err := in.r.Peek(1)
	for err == nil && len(first) == 1 && (first[0] == ' ' || first[0] == '\n' || first[0] == '\t' || first[0] == '\r') {
		_, _ = in.r.ReadByte()
		first, err = in.r.Peek(1)
	}
	if err == nil && first[0] == '[' {
		rr := in.records("JSON array element")
		dec := json.NewDecoder(rr)
		if _, err := dec.Token(); err != nil {
			return arrayErr(in, "", "invalid JSON array", err)
		}
		n := 1
		for ; dec.More(); n++ {
			var rec boolqRecord
			rr.next()
			if err := dec.Decode(&rec); err != nil {
				return arrayErr(in, fmt.Sprintf("[%d]", n-1), "invalid record", err)
			}
			if err := boolqWrite(ctx, im, rec, n, func(field, reason string) error {
				return lineErr(in.name, 0, fmt.Sprintf("[%d].%s", n-1, field), "%s", reason)
			}); err != nil {
				return err
			}
		}
		// More is false at the closing bracket, but also when reading
		// failed: the closing token tells them apart.
		rr.next()
		if _, err := dec.Token(); err != nil {
			return arrayErr(in, fmt.Sprintf("[%d]", n-1), "invalid JSON array", err)
		}
		return nil
	}
	return in.eachLine(func(line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var rec boolqRecord
		if err := strictUnmarshal(in, line, &rec); err != nil {
			return err
		}
		n := in.line
		return boolqWrite(ctx, im, rec, n, func(field, reason string) error {
			return lineErr(in.name, n, field, "%s", reason)
		})
	})
}

func boolqWrite(ctx context.Context, im *store.Importer, rec boolqRecord, seq int, bad func(field, reason string) error) error {
	text := rec.Question
	if text == "" {
		text = rec.Query
	}
	if text == "" {
		return bad("question", "missing or empty")
	}
	switch rec.QuestionType {
	case "", "and", "or", "not":
	default:
		return bad("question_type", fmt.Sprintf("%s is not one of and, or, not", quote(rec.QuestionType)))
	}
	id := rawID(rec.ID)
	if id == "" {
		id = rawID(rec.QID)
	}
	if id == "" {
		id = fmt.Sprintf("boolq-%d", seq)
	}
	md, _ := json.Marshal(map[string]string{"question_type": rec.QuestionType})
	qid, err := im.Query(ctx, store.QueryIn{ExtID: id, Text: text, Metadata: md, Seq: seq})
	if err != nil {
		return err
	}
	if err := im.ReplaceQrels(ctx, qid, "boolq"); err != nil {
		return err
	}
	groups := []struct {
		name string
		ctxs []boolqCtx
		kind string
		rel  int
	}{
		{"positive_ctxs", rec.Positive, "positive", 1},
		{"negative_ctxs", rec.Negative, "negative", 0},
		{"hard_negative_ctxs", rec.HardNegative, "", 0},
	}
	for _, g := range groups {
		for i, c := range g.ctxs {
			doc := c.docID()
			if doc == "" {
				return bad(fmt.Sprintf("%s[%d]", g.name, i), "no passage_id and no title")
			}
			if err := im.Document(ctx, store.DocumentIn{ExtID: doc, Title: c.Title, Body: c.Text, SentenceStarts: textseg.Starts(c.Text)}); err != nil {
				return err
			}
			if g.kind == "" {
				continue // hard negatives are distractors, not judged negatives
			}
			if err := im.Qrel(ctx, qid, doc, g.rel, g.kind, "boolq"); err != nil {
				return err
			}
		}
	}
	return nil
}
