package ingest

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"boolpool/server/store"
	"boolpool/server/textseg"
)

// BoolQuestions files, JSON lines or one JSON array (compact or
// pretty-printed). The release's evaluation records are DPR style; the
// importer also reads the field names other releases and conversions of
// it use (Tevatron's *_passages, short pos/neg lists, passages as plain
// strings). A question record:
//
//	id:        "id", "qid", "query_id" or "_id" (string or number; the
//	           first present and non-empty; default "boolq-<N>", N the
//	           line in JSON lines, the position in an array)
//	text:      "question" or "query" (the first non-empty)
//	type:      "question_type": and, or, not (any case) or absent
//	positives: "positive_ctxs", "positive_passages", "positives",
//	           "positive", "pos"                → qrels relevance 1
//	negatives: "negative_ctxs", "negative_passages", "negatives",
//	           "negative", "neg"                → explicit negatives
//	                                              (qrels of kind negative)
//	hard negatives: "hard_negative_ctxs", "hard_negative_passages",
//	           "hard_negatives"                 → documents only (retrieval
//	                                              distractors, not judged)
//
// Each passage field holds a list of passages, or one passage. A passage is
// a string (its text; its id is "p" + 12 hex digits of its text's SHA-1) or
// an object with an id ("passage_id", "psg_id", "docid", "doc_id", "pid",
// "_id" or "id"), "title" and text ("text", "passage", "contents", "doc" or
// "body"); without an id its title is its id, without either its text's
// hash. A passage with text or a title becomes a document; one with only
// an id is judged but not stored (its text is expected from a corpus
// import, e.g. the release's corpus file through this same format).
//
// A file whose first record has neither "question" nor "query" is a
// passage corpus (the release's corpus files): each record is one
// passage as above and becomes a document.
//
// Every other field, at the top level or in a passage, is reported in
// Result.Ignored; a bare NaN/Infinity (Python's json writes them, e.g. in
// a passage's "score") is harmless there and an error in a field read.
var (
	boolqIDFields       = []string{"id", "qid", "query_id", "_id"}
	boolqTextFields     = []string{"question", "query"}
	boolqTypeField      = "question_type"
	boolqPositiveFields = []string{"positive_ctxs", "positive_passages", "positives", "positive", "pos"}
	boolqNegativeFields = []string{"negative_ctxs", "negative_passages", "negatives", "negative", "neg"}
	boolqHardFields     = []string{"hard_negative_ctxs", "hard_negative_passages", "hard_negatives"}
	passageIDFields     = []string{"passage_id", "psg_id", "docid", "doc_id", "pid", "_id", "id"}
	passageTextFields   = []string{"text", "passage", "contents", "doc", "body"}
)

// passage is one passage of a BoolQuestions record.
type passage struct {
	id, title, text string
}

// boolqStats counts passages for the import's note.
type boolqStats struct {
	positive, negative, hard, idOnly int
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

// idValue reads an id field: a string or a number.
func idValue(in *input, field string, raw []byte) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", lineErr(in.name, in.line, field, "must be a string or a number")
}

// stringValue reads a string field; null is "".
func stringValue(in *input, field string, raw []byte) (string, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", lineErr(in.name, in.line, field, "must be a string")
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// subField names field k of the passage at field, or k itself at the top
// level.
func subField(field, k string) string {
	if field == "" || field == "[]" {
		return k
	}
	return field + "." + k
}

func textHashID(text string) string {
	h := sha1.Sum([]byte(text))
	return "p" + hex.EncodeToString(h[:6])
}

// readPassage reads one passage (a string or an object) at field.
func readPassage(in *input, field, group string, raw []byte, res *Result) (passage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		text, err := stringValue(in, field, raw)
		if err != nil {
			return passage{}, err
		}
		if text == "" {
			return passage{}, lineErr(in.name, in.line, field, "empty passage")
		}
		return passage{id: textHashID(text), text: text}, nil
	}
	obj, err := parseRawObject(raw)
	if err != nil {
		return passage{}, lineErr(in.name, in.line, field, "must be a passage (a string or an object with title and text): %v", err)
	}
	var p passage
	for _, k := range obj.keys {
		v := obj.values[k]
		switch {
		case contains(passageIDFields, k):
			id, err := idValue(in, subField(field, k), v)
			if err != nil {
				return p, err
			}
			if !keepFirst(&p.id, id) {
				res.ignore(subField(group+"[]", k))
			}
		case k == "title":
			if p.title, err = stringValue(in, subField(field, "title"), v); err != nil {
				return p, err
			}
		case contains(passageTextFields, k):
			s, err := stringValue(in, subField(field, k), v)
			if err != nil {
				return p, err
			}
			if !keepFirst(&p.text, s) {
				res.ignore(subField(group+"[]", k))
			}
		default:
			res.ignore(subField(group+"[]", k))
		}
	}
	switch {
	case p.id != "":
	case p.title != "":
		p.id = p.title
	case p.text != "":
		p.id = textHashID(p.text)
	default:
		return p, lineErr(in.name, in.line, field, "a passage needs an id (%s), a title or a text", strings.Join(passageIDFields, ", "))
	}
	return p, nil
}

// passageList holds a record's passages of one kind, each id once: a
// passage repeated in the record replaces the earlier one (the last one
// wins), so that memory grows with the distinct passages, not the list.
type passageList struct {
	list  []passage
	index map[string]int // id -> position in list
	dups  int            // passages that repeated an earlier one
}

func (l *passageList) add(p passage) {
	if i, ok := l.index[p.id]; ok {
		l.list[i] = p
		l.dups++
		return
	}
	if l.index == nil {
		l.index = map[string]int{}
	}
	l.index[p.id] = len(l.list)
	l.list = append(l.list, p)
}

// readPassages reads a passage field (null, one passage, or a list) into
// l, one element at a time; budget is how many more passages the record
// may have (MaxRecordElements in all).
func readPassages(in *input, field string, raw []byte, res *Result, l *passageList, budget *int) error {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	take := func() error {
		if *budget <= 0 {
			return lineErr(in.name, in.line, field, "more than %d passages in one record (the bound on elements of one record)", MaxRecordElements)
		}
		*budget--
		return nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		if err := take(); err != nil {
			return err
		}
		p, err := readPassage(in, field, field, raw, res)
		if err != nil {
			return err
		}
		l.add(p)
		return nil
	}
	err := eachArrayElement(raw, func(i int, e []byte) error {
		if err := take(); err != nil {
			return err
		}
		p, err := readPassage(in, fmt.Sprintf("%s[%d]", field, i), field, e, res)
		if err != nil {
			return err
		}
		l.add(p)
		return nil
	})
	var ee elementError
	if errors.As(err, &ee) {
		return ee.err
	}
	if err != nil {
		return lineErr(in.name, in.line, field, "invalid JSON: %v", err)
	}
	return nil
}

func importBoolQ(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	var stats boolqStats
	err := in.eachRecord(ctx, im, func(rec jsonRecord) error {
		obj, err := parseRawObject(rec.Raw)
		if err != nil {
			return lineErr(in.name, in.line, "", "invalid JSON: %v", err)
		}
		isQuestion := false
		for _, f := range boolqTextFields {
			if _, ok := obj.get(f); ok {
				isQuestion = true
			}
		}
		if err := boolqKinds.check(in, res, isQuestion); err != nil {
			return err
		}
		if !isQuestion {
			p, err := readPassage(in, "", "", rec.Raw, res)
			if err != nil {
				return err
			}
			if p.text == "" && p.title == "" {
				return lineErr(in.name, in.line, "text", "missing or empty (a passage record needs a text or a title)")
			}
			return boolqDocument(ctx, im, p)
		}
		return boolqQuestion(ctx, im, in, obj, rec.Seq, res, &stats)
	})
	if err != nil {
		return err
	}
	if res.Kind == "queries" {
		res.Notes = append(res.Notes, fmt.Sprintf("passages: %d positive (qrels), %d explicit negative (qrels of kind negative), %d hard negative (documents only), %d given by id only (judged, no document written)",
			stats.positive, stats.negative, stats.hard, stats.idOnly))
	}
	return nil
}

func boolqDocument(ctx context.Context, im *store.Importer, p passage) error {
	return im.Document(ctx, store.DocumentIn{ExtID: p.id, Title: p.title, Body: p.text, SentenceStarts: textseg.Starts(p.text)})
}

func boolqQuestion(ctx context.Context, im *store.Importer, in *input, obj *rawObject, seq int, res *Result, stats *boolqStats) error {
	var id, text, qtype string
	type group struct {
		passages passageList
		kind     string // qrel kind; "" = documents only
		rel      int
	}
	var pos, neg, hard group
	budget := MaxRecordElements
	pos.kind, pos.rel = "positive", 1
	neg.kind = "negative"
	for _, k := range obj.keys {
		v := obj.values[k]
		switch {
		case contains(boolqIDFields, k):
			s, err := idValue(in, k, v)
			if err != nil {
				return err
			}
			if !keepFirst(&id, s) {
				res.ignore(k)
			}
		case contains(boolqTextFields, k):
			s, err := stringValue(in, k, v)
			if err != nil {
				return err
			}
			if !keepFirst(&text, s) {
				res.ignore(k)
			}
		case k == boolqTypeField:
			s, err := stringValue(in, k, v)
			if err != nil {
				return err
			}
			qtype = strings.ToLower(strings.TrimSpace(s))
			switch qtype {
			case "", "and", "or", "not":
			default:
				return lineErr(in.name, in.line, k, "%s is not one of and, or, not", quote(s))
			}
		case contains(boolqPositiveFields, k), contains(boolqNegativeFields, k), contains(boolqHardFields, k):
			g := &hard
			if contains(boolqPositiveFields, k) {
				g = &pos
			} else if contains(boolqNegativeFields, k) {
				g = &neg
			}
			if err := readPassages(in, k, v, res, &g.passages, &budget); err != nil {
				return err
			}
		default:
			res.ignore(k)
		}
	}
	if text == "" {
		return lineErr(in.name, in.line, "question", "missing or empty")
	}
	if err := checkQueryText(in, in.line, "question", text); err != nil {
		return err
	}
	if id == "" {
		id = fmt.Sprintf("boolq-%d", seq)
	}
	md, _ := json.Marshal(map[string]string{"question_type": qtype})
	qid, err := im.Query(ctx, store.QueryIn{ExtID: id, Text: text, Metadata: md, Seq: seq})
	if err != nil {
		return err
	}
	if err := im.ReplaceQrels(ctx, qid, "boolq"); err != nil {
		return err
	}
	stats.positive += len(pos.passages.list)
	stats.negative += len(neg.passages.list)
	stats.hard += len(hard.passages.list)
	im.Repeated(pos.passages.dups + neg.passages.dups + hard.passages.dups)
	for _, g := range []*group{&pos, &neg, &hard} {
		for _, p := range g.passages.list {
			if p.text == "" && p.title == "" {
				stats.idOnly++
			} else if err := boolqDocument(ctx, im, p); err != nil {
				return err
			}
			if g.kind == "" {
				continue // hard negatives are distractors, not judged negatives
			}
			if err := im.Qrel(ctx, qid, p.id, g.rel, g.kind, "boolq"); err != nil {
				return err
			}
		}
	}
	return nil
}
