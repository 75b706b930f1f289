package httpapi_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"boolpool/api"
)

// TestCutListsAndBEIRZip (issue 17): the job list takes ?limit (bad → 400
// on limit), every incomplete query is listed with its text, and BEIR
// downloads as one zip with its three files.
func TestCutListsAndBEIRZip(t *testing.T) {
	e := newEnv(t, 2, nil)
	r := e.login("researcher")
	var p api.Problem
	if st := r.do("GET", "/api/projects/fixture/jobs?limit=0", nil, &p); st != 400 || p.Field != "limit" {
		t.Errorf("jobs?limit=0: %d %+v, want 400 on limit", st, p)
	}
	var jobs []api.JobView
	if st := r.do("GET", "/api/projects/fixture/jobs?limit=5", nil, &jobs); st != 200 {
		t.Errorf("jobs?limit=5: %d", st)
	}
	var qs []api.QueryProgress
	if st := r.do("GET", "/api/projects/fixture/progress/queries", nil, &qs); st != 200 || len(qs) != 2 || qs[0].ExtID != "q1" || !strings.HasPrefix(qs[0].Text, "Birds of the Venezuelan Andes") {
		t.Errorf("incomplete queries: %d %+v", st, qs)
	}

	a := e.login("admin")
	res, err := a.c.Get(e.srv.URL + "/api/projects/fixture/exports/beir")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/zip" ||
		!strings.Contains(res.Header.Get("Content-Disposition"), `-beir-`) || !strings.HasSuffix(res.Header.Get("Content-Disposition"), `.zip"`) {
		t.Fatalf("beir: %d %v", res.StatusCode, res.Header)
	}
	z, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"fixture-beir/corpus.jsonl", "fixture-beir/queries.jsonl", "fixture-beir/qrels/test.tsv"}
	for i, f := range z.File {
		if i >= len(want) || f.Name != want[i] {
			t.Errorf("zip file %d = %s", i, f.Name)
		}
	}
	rc, _ := z.File[1].Open()
	q, _ := io.ReadAll(rc)
	if !strings.Contains(string(q), `"_id": "q1"`) {
		t.Errorf("queries.jsonl = %.300s", q)
	}
	var snaps []api.ExportSnapshot
	if st := a.do("GET", "/api/projects/fixture/exports", nil, &snaps); st != 200 || len(snaps) != 1 || snaps[0].Format != "beir" {
		t.Errorf("recorded exports: %d %+v", st, snaps)
	}
}
