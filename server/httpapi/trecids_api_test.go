package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/store"
)

// TestExportSpacedIDs (issue 25): a project with QUEST ids (Wikipedia
// titles with spaces, and the collision "A b"/"A_b") downloads its TREC
// qrels, consensus qrels in every mode and the id map with 200 (they used
// to answer 500, "docid … contains white space"), every line free of
// spaced ids.
func TestExportSpacedIDs(t *testing.T) {
	e := newEnv(t, 1, nil)
	ctx := context.Background()
	p := e.fx.Project
	_, err := e.st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, d := range []string{"Merida wren", "A_b", "A b"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d, Title: d, Body: d + " sings."}); err != nil {
				return err
			}
		}
		for _, d := range []string{"Merida wren", "A b", "A_b"} {
			if err := im.Qrel(ctx, e.fx.Queries["q1"], d, 1, "positive", "qrels"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := e.st.DocumentByExtID(ctx, p.ID, "Merida wren")
	if err != nil {
		t.Fatal(err)
	}
	it, err := e.st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: api.KindRelevance, QueryID: e.fx.Queries["q1"], DocumentID: &doc.ID})
	if err != nil {
		t.Fatal(err)
	}
	grade, ev := int16(2), api.EvidenceComplete
	if _, _, err := e.st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-000000000001", ItemID: it.ID,
		UserID: e.fx.Users["annotator1"].ID, ProjectID: p.ID, Kind: api.KindRelevance, Relevance: &grade, Evidence: &ev}); err != nil {
		t.Fatal(err)
	}
	admin := e.login("admin")
	for _, c := range []struct{ path, want string }{
		{"trec-qrels", "q1 0 A_b~2 1\n"},
		{"trec-qrels", "q1 0 Merida_wren 1\n"},
		{"trec-qrels", "q1 0 A_b 1\n"},
		{"qrels-consensus", "q1 0 Merida_wren 2\n"},
		{"qrels-consensus?qrels=both", "q1 0 Merida_wren 2 direct\n"},
		{"qrels-consensus?qrels=derived", ""},
		{"idmap", "doc\tA_b~2\tA b\ndoc\tMerida_wren\tMerida wren\n"},
	} {
		st, body, h := admin.get("/api/projects/fixture/exports/" + c.path)
		if st != 200 {
			t.Errorf("%s: status %d: %s", c.path, st, body)
			continue
		}
		if !strings.Contains(string(body), c.want) {
			t.Errorf("%s: no %q in\n%s", c.path, c.want, body)
		}
		if strings.Contains(string(body), "Merida wren") && c.path != "idmap" {
			t.Errorf("%s: a spaced id in a TREC file:\n%s", c.path, body)
		}
		if c.path == "idmap" && !strings.HasSuffix(h.Get("Content-Disposition"), `.tsv"`) {
			t.Errorf("idmap file name: %s", h.Get("Content-Disposition"))
		}
	}
}
