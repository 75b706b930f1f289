package ingest

import (
	"context"
	"encoding/json"
	"fmt"

	"boolpool/server/store"
	"boolpool/server/textseg"
)

// NevIR pairs, JSON lines or one JSON array of objects:
//
//	{"id", "q1", "q2", "doc1", "doc2"}
//
// Other fields are not imported and are reported in Result.Ignored. A pair
// without an id is "pair<N>", N the line it starts on (as `boolpool eval
// --metrics nevir` names it when it reads the file); an id given twice in
// a file, or two pairs without id starting on one line (a compact array),
// are refused rather than merged.
//
// q1 is relevant to doc1 only and q2 to doc2 only (the negation flips the
// answer). Each pair becomes two queries "<id>-q1"/"<id>-q2" and two
// documents "<id>-doc1"/"<id>-doc2" with relevance 1 and explicit 0 qrels.
func importNevIR(ctx context.Context, im *store.Importer, in *input, res *Result) error {
	res.Kind = "pairs"
	seen := map[string]int{} // pair id -> line
	return in.eachRecord(ctx, im, func(rec jsonRecord) error {
		var p struct {
			ID   json.RawMessage `json:"id"`
			Q1   *string         `json:"q1"`
			Q2   *string         `json:"q2"`
			Doc1 *string         `json:"doc1"`
			Doc2 *string         `json:"doc2"`
		}
		if err := decodeObject(in, rec.Raw, []string{"id", "q1", "q2", "doc1", "doc2"}, &p, res); err != nil {
			return err
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"q1", p.Q1}, {"q2", p.Q2}, {"doc1", p.Doc1}, {"doc2", p.Doc2}} {
			if f.v == nil || *f.v == "" {
				return lineErr(in.name, in.line, f.name, "missing or empty")
			}
		}
		for _, f := range []struct{ name, v string }{{"q1", *p.Q1}, {"q2", *p.Q2}} {
			if err := checkQueryText(in, in.line, f.name, f.v); err != nil {
				return err
			}
		}
		id := rawID(p.ID)
		if id == "" {
			id = fmt.Sprintf("pair%d", rec.Line)
			if _, dup := seen[id]; dup {
				return lineErr(in.name, in.line, "id", "missing, and another pair without id starts on this line (its id would be %s too): give the pairs ids or one per line", id)
			}
		}
		if prev, dup := seen[id]; dup {
			return lineErr(in.name, in.line, "id", "pair %s already given on line %d", quote(id), prev)
		}
		seen[id] = rec.Line
		md, _ := json.Marshal(map[string]string{"nevir_pair": id})
		for i, d := range []string{*p.Doc1, *p.Doc2} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("%s-doc%d", id, i+1), Body: d,
				SentenceStarts: textseg.Starts(d), Metadata: md}); err != nil {
				return err
			}
		}
		for i, q := range []string{*p.Q1, *p.Q2} {
			qid, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("%s-q%d", id, i+1), Text: q, Metadata: md, Seq: 2*rec.Seq + i})
			if err != nil {
				return err
			}
			for j := 0; j < 2; j++ {
				rel, kind := 0, "negative"
				if i == j {
					rel, kind = 1, "positive"
				}
				if err := im.Qrel(ctx, qid, fmt.Sprintf("%s-doc%d", id, j+1), rel, kind, "nevir"); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
