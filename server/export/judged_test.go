package export_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"boolpool/server/consensus"
	"boolpool/server/export"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

func TestJudgedExports(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "exp")
	md := json.RawMessage(`{"template": "_ and _", "domain": "films", "fluency": ["Fluent"], "relevance_ratings": null, "evidence_ratings": null, "attributions": null}`)
	qids := map[string]int64{}
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, d := range []string{"A", "B", "C", "D"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d, Title: d, Body: d + " is a film. It is French.", SentenceStarts: []int32{0, int32(len(d + " is a film. "))}}); err != nil {
				return err
			}
		}
		for i, q := range []string{"judged", "untouched"} {
			id, err := im.Query(ctx, store.QueryIn{ExtID: q, Text: "French films that are comedies", OriginalQuery: "<mark>French films</mark> that are <mark>comedies</mark>",
				Atoms: []store.Atom{{Text: "French films", Start: 0, End: 12}, {Text: "comedies", Start: 22, End: 30}}, AnswerDocs: []string{"A", "B", "C"},
				Metadata: md, Seq: i})
			if err != nil {
				return err
			}
			qids[q] = id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var users []int64
	for i := range 3 {
		u, err := st.CreateUser(ctx, store.NewUser{Username: fmt.Sprintf("r%d", i), Role: vocab.RoleAnnotator})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	// labels per document and rater; B ends up not relevant, D relevant.
	labels := map[string][]int{"A": {3, 2, 3}, "B": {1, 0, 2}, "D": {2, 3, 3}}
	cons := consensus.NewService(st, nil)
	n := 0
	for _, doc := range []string{"A", "B", "D"} {
		d, err := st.DocumentByExtID(ctx, p.ID, doc)
		if err != nil {
			t.Fatal(err)
		}
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: vocab.KindRelevance, QueryID: qids["judged"], DocumentID: &d.ID})
		if err != nil {
			t.Fatal(err)
		}
		for r, l := range labels[doc] {
			rel, ev := int16(l), []string{vocab.EvidenceComplete, vocab.EvidencePartial, vocab.EvidenceNone}[r]
			attrs := json.RawMessage(`[]`)
			if doc == "A" && r == 0 {
				attrs = json.RawMessage(`[{"atom": 1, "sentences": [0], "counter": false, "satisfied": "yes"}, {"atom": 0, "sentences": [0, 1], "counter": false, "satisfied": "yes"}]`)
			}
			n++
			if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: it.ID, UserID: users[r],
				ProjectID: p.ID, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev, Attributions: attrs}); err != nil {
				t.Fatal(err)
			}
		}
		if doc == "D" {
			continue // no per-item refresh: the export's sync must catch it
		}
		if _, err := cons.Refresh(ctx, it.ID); err != nil {
			t.Fatal(err)
		}
	}

	var qrels bytes.Buffer
	if _, err := export.Write(ctx, st, p.ID, "qrels-consensus", &qrels, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "judged 0 A 3\njudged 0 B 1\njudged 0 D 3\n"; qrels.String() != want {
		t.Errorf("qrels-consensus:\n%swant:\n%s", qrels.String(), want)
	}

	var judged, plain bytes.Buffer
	c, err := export.Write(ctx, st, p.ID, "quest-judged", &judged, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Queries != 2 || c.Judgments != 9 {
		t.Errorf("counts %+v, want 2 queries and 9 judgments", c)
	}
	if _, err := export.Write(ctx, st, p.ID, "quest", &plain, export.Options{}); err != nil {
		t.Fatal(err)
	}
	jl := strings.SplitAfter(judged.String(), "\n")
	pl := strings.SplitAfter(plain.String(), "\n")
	if jl[1] != pl[1] {
		t.Errorf("an unjudged query must be written as quest writes it:\n%s\n%s", jl[1], pl[1])
	}
	want := `{"query": "French films that are comedies", "docs": ["A","C","D"], ` +
		`"original_query": "<mark>French films</mark> that are <mark>comedies</mark>", ` +
		`"metadata": {"template": "_ and _", "domain": "films", "fluency": ["Fluent"], ` +
		`"relevance_ratings": {"A": ["Definitely relevant","Likely relevant","Definitely relevant"], ` +
		`"D": ["Likely relevant","Definitely relevant","Definitely relevant"], ` +
		`"B": ["Likely not relevant","Definitely not relevant","Likely relevant"]}, ` +
		`"evidence_ratings": {"A": ["Complete","Partial","No evidence"], "D": ["Complete","Partial","No evidence"], "B": ["Complete","Partial","No evidence"]}, ` +
		`"attributions": {"A": [{"French films": "A is a film. It is French.", "comedies": "A is a film."}, {}, {}], "D": [{}, {}, {}], "B": [{}, {}, {}]}}}` + "\n"
	if jl[0] != want {
		t.Errorf("quest-judged line:\n%s\nwant:\n%s", jl[0], want)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(jl[0]), &line); err != nil {
		t.Errorf("quest-judged line is not JSON: %v", err)
	}

	// A snapshot records what was written.
	var out bytes.Buffer
	snap, err := export.WriteSnapshot(ctx, st, p.ID, "quest-judged", &out, export.Options{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(out.Bytes())
	if snap.SHA256 != hex.EncodeToString(sum[:]) || snap.Bytes != int64(out.Len()) || out.String() != judged.String() {
		t.Errorf("snapshot %+v does not describe its output", snap)
	}
	snaps, err := st.ExportSnapshots(ctx, p.ID)
	if err != nil || len(snaps) != 1 || snaps[0].ID != snap.ID || snaps[0].Format != "quest-judged" {
		t.Fatalf("recorded snapshots %+v (%v)", snaps, err)
	}
	var counts map[string]any
	_ = json.Unmarshal(snaps[0].Counts, &counts)
	if counts["sha256"] != snap.SHA256 || counts["judgments"] != float64(9) {
		t.Errorf("recorded counts %v", counts)
	}
}
