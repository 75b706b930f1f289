package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/config"
	"boolpool/server/embedjob"
	"boolpool/server/ingest"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// runJob submits one job to the job client of a worker (server/app), and waits for its end.
func runJob(t *testing.T, st *store.Store, cache string, projectID int64, kind, params string) store.Job {
	t.Helper()
	ctx := context.Background()
	a := apptest.New(t, config.Config{}, st, slog.New(slog.DiscardHandler), app.Options{JobsOnly: true, CacheDir: cache, Jobs: jobs.Config{Concurrency: 1, Test: true}})
	j, err := a.Jobs.Submit(ctx, projectID, kind, json.RawMessage(params), 0)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j, err = st.JobByID(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.Finished() || time.Now().After(deadline) {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func importSmall(t *testing.T, st *store.Store) store.Project {
	t.Helper()
	ctx := context.Background()
	p, err := st.EnsureProject(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.csv")
	csv := "id,title,text\na,Condor,A large vulture of the Andes.\nb,Espresso,Coffee brewed under pressure.\n"
	if err := os.WriteFile(docs, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "csv", []string{docs}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEncodeJobWithoutModels: on a server whose encoder files are missing,
// encode jobs fail with a message saying what to run, and nothing crashes.
func TestEncodeJobWithoutModels(t *testing.T) {
	if os.Getenv("BOOLPOOL_ORT_LIB") != "" {
		t.Skip("BOOLPOOL_ORT_LIB points at a library outside the empty cache")
	}
	st := storetest.New(t)
	p := importSmall(t, st)
	empty := t.TempDir()
	for _, enc := range []string{"minilm-static", "lexical"} {
		j := runJob(t, st, empty, p.ID, api.JobKindEncode, `{"encoder": "`+enc+`"}`)
		if j.State != vocab.JobFailed || !strings.Contains(j.Error, "encoder models are not prepared") {
			t.Fatalf("%s: %s: %s", enc, j.State, j.Error)
		}
	}
}

// TestEncodeJobLexical encodes a project with the lexical encoder as a job
// (needs the fetched tokenizer), with progress over the documents.
func TestEncodeJobLexical(t *testing.T) {
	cache := tokenizerCache(t)
	st := storetest.New(t)
	p := importSmall(t, st)
	j := runJob(t, st, cache, p.ID, api.JobKindEncode, `{"encoder": "lexical", "skip_queries": true}`)
	if j.State != vocab.JobDone {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	var rep embedjob.Report
	if err := json.Unmarshal(j.Result, &rep); err != nil || rep.Encoded != 2 {
		t.Fatalf("report %s: %v", j.Result, err)
	}
	if j.Done != 2 || j.Total != 2 || j.Phase != "encoding documents" {
		t.Fatalf("progress %s %d/%d", j.Phase, j.Done, j.Total)
	}
}

// TestRetrieveJobWarnsWithoutExpression: a Boolean method run as a job
// over queries without expressions finishes, and its status (phase and
// result) says how many ran as the plain method and what to run.
func TestRetrieveJobWarnsWithoutExpression(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := importSmall(t, st)
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		_, err := im.Query(ctx, store.QueryIn{ExtID: "q1", Text: "vulture of the Andes"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	j := runJob(t, st, t.TempDir(), p.ID, api.JobKindRetrieve, `{"method": "pnorm", "depth": 5}`)
	if j.State != vocab.JobDone {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	want := "1 of 1 queries have no expression: ran as plain bm25"
	if !strings.Contains(j.Phase, want) || !strings.Contains(j.Phase, "boolpool decompose --project jobs") {
		t.Errorf("phase %q lacks %q", j.Phase, want)
	}
	var sum struct {
		NoExpression int      `json:"no_expression"`
		Warnings     []string `json:"warnings"`
	}
	if err := json.Unmarshal(j.Result, &sum); err != nil || sum.NoExpression != 1 || len(sum.Warnings) != 1 {
		t.Fatalf("result %s: %v", j.Result, err)
	}
}
