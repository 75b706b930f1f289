package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"testing"

	"boolpool/server/export"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestJudgmentsCSVNeutralisesFormulas: a comment, an id or a name that
// starts like a formula (=, +, -, @, tab, carriage return) reaches the CSV
// export with a leading single quote, so a spreadsheet shows it as text
// instead of running it. Plain numbers, negative ones included, stay
// numbers. (The export used to write such cells as they were.)
func TestJudgmentsCSVNeutralisesFormulas(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "csv")
	var qid int64
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		if err := im.Document(ctx, store.DocumentIn{ExtID: "=HYPERLINK(\"http://evil\")", Title: "d", Body: "d."}); err != nil {
			return err
		}
		var err error
		qid, err = im.Query(ctx, store.QueryIn{ExtID: "+q1", Text: "q", Seq: 1})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := st.DocumentByExtID(ctx, p.ID, "=HYPERLINK(\"http://evil\")")
	if err != nil {
		t.Fatal(err)
	}
	it, err := st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: vocab.KindRelevance, QueryID: qid, DocumentID: &d.ID})
	if err != nil {
		t.Fatal(err)
	}
	comments := []string{"=1+1", "+SUM(A1:A9)", "-2+3", "@SUM(1)", "\t=1", "\r=1", "-5", "fine = good", ""}
	want := []string{"'=1+1", "'+SUM(A1:A9)", "'-2+3", "'@SUM(1)", "'\t=1", "'\r=1", "-5", "fine = good", ""}
	for i, c := range comments {
		u, err := st.CreateUser(ctx, store.NewUser{Username: fmt.Sprintf("r%d", i), Role: vocab.RoleAnnotator})
		if err != nil {
			t.Fatal(err)
		}
		rel, ev := int16(2), vocab.EvidenceComplete
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), ItemID: it.ID,
			UserID: u.ID, ProjectID: p.ID, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev, Comment: c}); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, err := export.Write(ctx, st, p.ID, "csv", &out, export.Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(comments)+1 {
		t.Fatalf("%d rows, want %d", len(rows), len(comments)+1)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, r := range rows[1:] {
		if got := r[col["comment"]]; got != want[i] {
			t.Errorf("comment %q exported as %q, want %q", comments[i], got, want[i])
		}
		if got := r[col["doc_id"]]; got != `'=HYPERLINK("http://evil")` {
			t.Errorf("doc_id %q", got)
		}
		if got := r[col["query_id"]]; got != "'+q1" {
			t.Errorf("query_id %q", got)
		}
		if got := r[col["relevance"]]; got != "2" {
			t.Errorf("relevance %q", got)
		}
	}
	// The TREC qrels of the same project are not CSV and stay exact.
	var qrels bytes.Buffer
	if _, err := export.Write(ctx, st, p.ID, "trec-qrels", &qrels, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(qrels.Bytes(), []byte("'")) {
		t.Errorf("trec-qrels changed: %q", qrels.String())
	}
}
