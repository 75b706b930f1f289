package ingest

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"boolpool/server/boolexpr"
	"boolpool/server/decompose"
	"boolpool/server/store"
	"boolpool/server/textseg"
)

// QUEST records (JSON lines, or one JSON array, compact or pretty-printed)
// are either queries
//
//	{"query", "docs", "original_query", "scores", "metadata"}
//
// or documents ({"title", "text"}, QUEST's documents.jsonl). The kind of a
// file is decided by its first record.
//
// Traps in real files and what we do about them:
//   - a bare NaN / Infinity in "scores" (Python's json writes them): kept
//     verbatim and exported verbatim, since "scores" is opaque to boolpool,
//     and counted in a note; anywhere else it is an error (JSON has no NaN);
//   - unknown top-level fields are kept and exported after the known ones;
//   - a template whose <mark> count does not fit it: the query is imported
//     without an expression and the import reports it as a note.
//
// QUEST queries have no id: a query's id is a hash of its text and marked
// text, with "-2", "-3" … added for repeats within a file, which keeps
// re-imports idempotent.

const questSource = "gold"

var questKnown = map[string]bool{"query": true, "docs": true, "original_query": true, "scores": true, "metadata": true}

func importQuest(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	seen := map[string]int{}
	nonFinite := 0
	err := in.eachRecord(ctx, im, func(rec jsonRecord) error {
		obj, err := parseRawObject(rec.Raw)
		if err != nil {
			return lineErr(in.name, in.line, "", "%v", err)
		}
		_, isQuery := obj.get("query")
		if err := questKinds.check(in, res, isQuery); err != nil {
			return err
		}
		if isQuery {
			if raw, ok := obj.get("scores"); ok && hasNonFinite(raw) {
				nonFinite++
			}
			return questQueryLine(ctx, im, in, obj, rec.Seq, seen, res)
		}
		return questDocumentLine(ctx, im, in, obj)
	})
	if err == nil && nonFinite > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d queries have bare NaN/Infinity in \"scores\" (not JSON; written by Python): kept verbatim and exported verbatim", nonFinite))
	}
	return err
}

func questDocumentLine(ctx context.Context, im *store.Importer, in *input, obj *rawObject) error {
	title, err := requiredString(in, obj, "title")
	if err != nil {
		return err
	}
	text, err := requiredString(in, obj, "text")
	if err != nil {
		return err
	}
	if title == "" {
		return lineErr(in.name, in.line, "title", "empty (the title is the document id)")
	}
	md := map[string]json.RawMessage{}
	for _, k := range obj.keys {
		if k != "title" && k != "text" {
			if hasNonFinite(obj.values[k]) {
				return lineErr(in.name, in.line, k, "bare NaN/Infinity is not JSON")
			}
			if !json.Valid(obj.values[k]) {
				return lineErr(in.name, in.line, k, "not valid JSON")
			}
			md[k] = obj.values[k]
		}
	}
	mdb, _ := json.Marshal(md)
	return im.Document(ctx, store.DocumentIn{
		ExtID: title, Title: title, Body: text, SentenceStarts: textseg.Starts(text), Metadata: mdb,
	})
}

func questQueryLine(ctx context.Context, im *store.Importer, in *input, obj *rawObject, seq int, seen map[string]int, res *Result) error {
	q, note, err := parseQuestQuery(in.name, in.line, obj)
	if err != nil {
		return err
	}
	q.Seq = seq
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	seen[q.ExtID]++
	if n := seen[q.ExtID]; n > 1 {
		q.ExtID = fmt.Sprintf("%s-%d", q.ExtID, n)
	}
	qid, err := im.Query(ctx, q)
	if err != nil {
		return err
	}
	if err := im.ReplaceQrels(ctx, qid, questSource); err != nil {
		return err
	}
	for _, d := range q.AnswerDocs {
		if err := im.Qrel(ctx, qid, d, 1, "positive", questSource); err != nil {
			return err
		}
	}
	return nil
}

// parseQuestQuery turns one QUEST query line into a query to store. It
// touches no database, so it can be fuzzed on its own. note is a
// non-fatal remark (e.g. marks that do not fit the template).
func parseQuestQuery(file string, line int, obj *rawObject) (q store.QueryIn, note string, err error) {
	in := &input{name: file, line: line}
	text, err := requiredString(in, obj, "query")
	if err != nil {
		return q, "", err
	}
	if err := checkQueryText(in, line, "query", text); err != nil {
		return q, "", err
	}
	raw, ok := obj.get("docs")
	if !ok {
		return q, "", lineErr(file, line, "docs", "missing")
	}
	docs, err := questDocs(in, raw)
	if err != nil {
		return q, "", err
	}
	original := ""
	if raw, ok := obj.get("original_query"); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &original); err != nil {
			return q, "", lineErr(file, line, "original_query", "must be a string")
		}
	}
	var scores *string
	if raw, ok := obj.get("scores"); ok {
		if !json.Valid(nonFiniteToNull(raw)) {
			return q, "", lineErr(file, line, "scores", "not valid JSON")
		}
		s := string(oneLine(raw))
		scores = &s
	}
	metadata := json.RawMessage(`{}`)
	var meta struct {
		Template *string `json:"template"`
		Domain   *string `json:"domain"`
		Split    *string `json:"split"`
	}
	if raw, ok := obj.get("metadata"); ok && string(raw) != "null" {
		if hasNonFinite(raw) {
			return q, "", lineErr(file, line, "metadata", "bare NaN/Infinity is not JSON (only \"scores\" may carry them)")
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return q, "", lineErr(file, line, "metadata", "must be an object with string template/domain/split: %v", err)
		}
		metadata = json.RawMessage(oneLine(raw))
	}
	extra := map[string]json.RawMessage{}
	var extraKeys []string
	for _, k := range obj.keys {
		if !questKnown[k] {
			if hasNonFinite(obj.values[k]) {
				return q, "", lineErr(file, line, k, "bare NaN/Infinity is not JSON")
			}
			if !json.Valid(obj.values[k]) {
				return q, "", lineErr(file, line, k, "not valid JSON")
			}
			extra[k] = oneLine(obj.values[k])
			extraKeys = append(extraKeys, k)
		}
	}
	extraJSON := json.RawMessage(`{}`)
	if len(extraKeys) > 0 {
		extraJSON = orderedObject(extraKeys, extra)
	}
	q = store.QueryIn{
		Text: text, OriginalQuery: original, AnswerDocs: docs, ScoresRaw: scores,
		Metadata: metadata, Extra: extraJSON, Seq: line,
	}
	if meta.Template != nil {
		q.Template = *meta.Template
	}
	if meta.Domain != nil {
		q.Domain = *meta.Domain
	}
	if meta.Split != nil {
		q.Split = *meta.Split
	}
	if original != "" {
		if err := checkQueryText(in, line, "original_query", original); err != nil {
			return q, "", err
		}
		spans, _, err := boolexpr.ParseMarked(original)
		if err != nil {
			return q, "", lineErr(file, line, "original_query", "%v", err)
		}
		if len(spans) > decompose.MaxAtoms {
			return q, "", lineErr(file, line, "original_query", "%d marked atoms, more than the %d a query may have", len(spans), decompose.MaxAtoms)
		}
		for _, sp := range spans {
			q.Atoms = append(q.Atoms, store.Atom{Text: sp.Text, Start: sp.Start, End: sp.End})
		}
		if q.Template != "" {
			if expr, err := boolexpr.FromTemplate(q.Template, len(spans)); err == nil {
				b, _ := json.Marshal(expr)
				q.Expression = b
			} else {
				note = fmt.Sprintf("%s:%d: no expression: %v", file, line, err)
			}
		}
	}
	h := sha1.Sum([]byte(text + "\x00" + original))
	q.ExtID = "q" + hex.EncodeToString(h[:6])
	return q, note, nil
}

// questDocs reads a query's "docs": null or an array of titles, at most
// MaxRecordElements of them, read one by one (a title repeated in the
// list stays in the query's answer list; its qrel is written once).
func questDocs(in *input, raw []byte) ([]string, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var docs []string
	err := eachArrayElement(raw, func(i int, elem []byte) error {
		if i >= MaxRecordElements {
			return lineErr(in.name, in.line, "docs", "more than %d titles (the bound on elements of one record)", MaxRecordElements)
		}
		var d string
		if err := json.Unmarshal(elem, &d); err != nil {
			return errNotTitles
		}
		docs = append(docs, d)
		return nil
	})
	if le := (*LineError)(nil); errors.As(err, &le) {
		return nil, le
	}
	if err != nil {
		return nil, lineErr(in.name, in.line, "docs", "must be an array of document titles (strings)")
	}
	if docs == nil {
		docs = []string{}
	}
	return docs, nil
}

var errNotTitles = errors.New("not a title")

func requiredString(in *input, obj *rawObject, field string) (string, error) {
	raw, ok := obj.get(field)
	if !ok {
		return "", lineErr(in.name, in.line, field, "missing")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", lineErr(in.name, in.line, field, "must be a string")
	}
	if !utf8.ValidString(s) {
		return "", lineErr(in.name, in.line, field, "not valid UTF-8")
	}
	return s, nil
}

// orderedObject writes a JSON object with keys in the given order.
func orderedObject[V ~[]byte](keys []string, vals map[string]V) json.RawMessage {
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, vals[k]...)
	}
	return append(b, '}')
}
