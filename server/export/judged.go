package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"boolpool/server/atoms"
	"boolpool/server/consensus"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Exports of our own judgments (both first ask the consensus owner to bring
// the stored consensus up to date with every stored judgment,
// consensus.Current, and then read the consensus table):
//
//   - qrels-consensus: TREC qrels "qid 0 docid grade" of the consensus
//     label of every judged item (server/consensus: majority of the
//     binarised votes, lower median as the grade, adjudications override;
//     or with Options.Consensus "dawid-skene" the Dawid–Skene verdict,
//     consensus.DecideDS), in query import order then document id.
//   - quest-judged: QUEST jsonl whose metadata relevance_ratings,
//     evidence_ratings and attributions come from the current judgments
//     (one entry per rater, by judgment id), with QUEST's label strings.
//     attributions map each atom's text to the attributed sentences joined
//     by one space. "docs" is the imported answer set without the
//     documents the consensus judged not relevant, followed by the other
//     consensus-relevant documents in id order. A query nobody judged is
//     written exactly as the quest format writes it.

// questRelevance is QUEST's label for a grade (0–3).
func questRelevance(grade int) string {
	switch grade {
	case 0:
		return "Definitely not relevant"
	case 1:
		return "Likely not relevant"
	case 2:
		return "Likely relevant"
	default:
		return "Definitely relevant"
	}
}

// questEvidence is QUEST's label for an evidence value.
func questEvidence(ev string) string {
	switch ev {
	case vocab.EvidenceComplete:
		return "Complete"
	case vocab.EvidencePartial:
		return "Partial"
	case vocab.EvidenceNone:
		return "No evidence"
	default:
		return ""
	}
}

// judgedDoc gathers one document's current judgments for one query.
type judgedDoc struct {
	ext        string
	docID      int64
	relevance  []string
	evidence   []string
	attributes []json.RawMessage // per rater, atom index → sentence ids
}

func questJudged(ctx context.Context, st *store.Store, projectID int64, method, mode string, w *bufio.Writer) (Counts, error) {
	var c Counts
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return c, err
	}
	var derived map[string][]atoms.Qrel
	if mode == vocab.QrelsDerived || mode == vocab.QrelsBoth {
		var err error
		if derived, _, err = derivedSet(ctx, st, projectID, method); err != nil {
			return c, err
		}
	}
	// line writes one query, with the derived labels in a derived or both
	// export.
	line := func(q store.Query, docs []string, md json.RawMessage) error {
		if derived != nil {
			imported := map[string]bool{}
			for _, d := range q.AnswerDocs {
				imported[d] = true
			}
			var err error
			if docs, md, err = withDerived(mode, docs, md, derived[q.ExtID], imported); err != nil {
				return fmt.Errorf("export: query %s: %w", q.ExtID, err)
			}
		}
		return writeQuestLine(w, &c, q, docs, md)
	}
	byQuery := map[int64][]*judgedDoc{}
	needText := map[int64]bool{}
	err := st.EachCurrentJudgment(ctx, projectID, func(r store.JudgedRow) error {
		docs := byQuery[r.QueryID]
		if len(docs) == 0 || docs[len(docs)-1].ext != r.DocExtID {
			docs = append(docs, &judgedDoc{ext: r.DocExtID, docID: r.DocumentID})
			byQuery[r.QueryID] = docs
		}
		d := docs[len(docs)-1]
		if r.Relevance < 0 || r.Relevance > 3 {
			return fmt.Errorf("export: judgment %d: relevance %d out of range", r.JudgmentID, r.Relevance)
		}
		d.relevance = append(d.relevance, questRelevance(r.Relevance))
		d.evidence = append(d.evidence, questEvidence(r.Evidence))
		d.attributes = append(d.attributes, r.Attributions)
		if len(r.Attributions) > 2 {
			needText[r.DocumentID] = true
		}
		c.Judgments++
		return nil
	})
	if err != nil {
		return c, err
	}
	verdict, err := consensusGrades(ctx, st, projectID, method) // query ext id → doc → consensus grade
	if err != nil {
		return c, err
	}
	ids := slices.Collect(maps.Keys(needText))
	texts, err := st.DocumentsByIDs(ctx, ids)
	if err != nil {
		return c, err
	}
	sentences := map[int64][]string{}
	for id, d := range texts {
		sentences[id] = judging.DocumentViewOf(d).Sentences
	}
	err = st.EachQuery(ctx, projectID, func(q store.Query) error {
		q, qerr := withStoredExpression(q)
		if qerr != nil {
			return qerr
		}
		docs := byQuery[q.ID]
		if len(docs) == 0 {
			return line(q, q.AnswerDocs, q.Metadata)
		}
		answer := judgedAnswer(q.AnswerDocs, verdict[q.ExtID])
		order := map[string]int{}
		for i, d := range answer {
			order[d] = i
		}
		sort.SliceStable(docs, func(i, j int) bool {
			oi, iIn := order[docs[i].ext]
			oj, jIn := order[docs[j].ext]
			if iIn != jIn {
				return iIn
			}
			if iIn {
				return oi < oj
			}
			return docs[i].ext < docs[j].ext
		})
		rel, ev, attr := orderedObject{}, orderedObject{}, orderedObject{}
		for _, d := range docs {
			rel.add(d.ext, jsonValue(d.relevance))
			ev.add(d.ext, jsonValue(d.evidence))
			var per []byte
			per = append(per, '[')
			for i, raw := range d.attributes {
				if i > 0 {
					per = append(per, ", "...)
				}
				o, err := attributionObject(raw, q.Atoms, sentences[d.docID])
				if err != nil {
					return fmt.Errorf("export: query %s document %s: %w", q.ExtID, d.ext, err)
				}
				per = append(per, o...)
			}
			per = append(per, ']')
			attr.add(d.ext, per)
		}
		md, err := replaceKeys(q.Metadata, map[string][]byte{
			"relevance_ratings": rel.bytes(), "evidence_ratings": ev.bytes(), "attributions": attr.bytes(),
		}, []string{"relevance_ratings", "evidence_ratings", "attributions"})
		if err != nil {
			return fmt.Errorf("export: query %s metadata: %w", q.ExtID, err)
		}
		return line(q, answer, md)
	})
	return c, err
}

// judgedAnswer is the answer set after judging: imported answers not
// judged irrelevant, then the other consensus-relevant documents.
func judgedAnswer(answer []string, verdict map[string]int) []string {
	out := []string{}
	in := map[string]bool{}
	for _, d := range answer {
		in[d] = true
		if g, judged := verdict[d]; judged && g < consensus.RelevantThreshold {
			continue
		}
		out = append(out, d)
	}
	var extra []string
	for d, g := range verdict {
		if g >= consensus.RelevantThreshold && !in[d] {
			extra = append(extra, d)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// attributionObject turns one judgment's attributions into QUEST's
// {"atom text": "sentences", ...}; atoms without sentences are left out.
func attributionObject(raw json.RawMessage, atoms []store.Atom, sentences []string) ([]byte, error) {
	var attrs []judging.Attribution
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &attrs); err != nil {
			return nil, fmt.Errorf("attributions: %w", err)
		}
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].Atom < attrs[j].Atom })
	o := orderedObject{}
	for _, a := range attrs {
		if a.Atom < 0 || a.Atom >= len(atoms) || len(a.Sentences) == 0 {
			continue
		}
		var parts []string
		for _, s := range a.Sentences {
			if s >= 0 && s < len(sentences) {
				parts = append(parts, sentences[s])
			}
		}
		if len(parts) > 0 {
			o.add(atoms[a.Atom].Text, jsonValue(strings.Join(parts, " ")))
		}
	}
	return o.bytes(), nil
}

// orderedObject builds a JSON object keeping insertion order.
type orderedObject struct{ b []byte }

func (o *orderedObject) add(key string, raw []byte) {
	o.b = field(o.b, len(o.b) == 0, key, raw)
}

func (o *orderedObject) bytes() []byte {
	return append(append([]byte{'{'}, o.b...), '}')
}

// replaceKeys sets keys of a JSON object, in place when present, else
// appended in the given order; other keys keep their order.
func replaceKeys(obj json.RawMessage, set map[string][]byte, order []string) ([]byte, error) {
	var keys []string
	vals := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" {
		if err := decodeOrdered(obj, &keys, vals); err != nil {
			return nil, err
		}
	}
	o := orderedObject{}
	done := map[string]bool{}
	for _, k := range keys {
		if v, ok := set[k]; ok {
			o.add(k, v)
			done[k] = true
			continue
		}
		o.add(k, vals[k])
	}
	for _, k := range order {
		if !done[k] {
			o.add(k, set[k])
		}
	}
	return o.bytes(), nil
}

// writeQuestLine is the one writer of a QUEST query line (the quest and
// quest-judged formats both write with it): q with the given docs and
// metadata, counted in c.
func writeQuestLine(w *bufio.Writer, c *Counts, q store.Query, docs []string, md json.RawMessage) error {
	b := []byte{'{'}
	b = field(b, true, "query", jsonValue(q.Text))
	if docs == nil {
		docs = []string{}
	}
	b = field(b, false, "docs", jsonValue(docs))
	b = field(b, false, "original_query", jsonValue(q.OriginalQuery))
	if q.ScoresRaw != nil {
		b = field(b, false, "scores", []byte(*q.ScoresRaw))
	}
	if len(md) == 0 {
		md = json.RawMessage(`{}`)
	}
	b = field(b, false, "metadata", md)
	if len(q.Extra) > 2 {
		var keys []string
		vals := map[string]json.RawMessage{}
		if err := decodeOrdered(q.Extra, &keys, vals); err != nil {
			return fmt.Errorf("export: query %s extra fields: %w", q.ExtID, err)
		}
		for _, k := range keys {
			b = field(b, false, k, vals[k])
		}
	}
	c.Queries++
	c.Lines++
	_, err := w.Write(append(b, "}\n"...))
	return err
}

// Snapshot describes a recorded export.
type Snapshot struct {
	ID        string    `json:"id"`
	Format    string    `json:"format"`
	Counts    Counts    `json:"counts"`
	Bytes     int64     `json:"bytes"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"created_at"`
}
