package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestEncodeCLI drives `boolpool encode` as a user would: a first run
// encodes every document and query text, a second run nothing, and bad
// usage exits 2.
func TestEncodeCLI(t *testing.T) {
	needEncoders(t, "run scripts/install-onnxruntime.sh, scripts/fetch-models.sh and 'boolpool model prepare', or make test",
		"onnxruntime/libonnxruntime.so.1", "models/minilm-static.onnx")
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	var out, errb bytes.Buffer
	csv := "id,title,text\n" +
		"a,Condor,A large vulture of the Andes mountains.\n" +
		"b,Espresso,Coffee brewed under high pressure.\n" +
		"c,Rsync,Incremental file transfer over the network.\n"
	quest := `{"query": "Andean birds that are not vultures", "docs": ["Condor"], "original_query": "<mark>Andean birds</mark> that are not <mark>vultures</mark>", "scores": null, "metadata": {"template": "_ that are not _"}}` + "\n"
	docs, queries := c.write("docs.csv", csv), c.write("queries.jsonl", quest)
	for _, args := range [][]string{
		{"import", "--database-url", db, "--project", "cli", "--format", "csv", docs},
		{"import", "--database-url", db, "--project", "cli", "--format", "quest", queries},
	} {
		if code := run(ctx, args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}

	encode := []string{"encode", "--database-url", db, "--project", "cli", "--encoder", "minilm-static", "--batch", "2"}
	for i, want := range []string{
		"3 documents, 3 encoded, 0 unchanged",
		"3 documents, 0 encoded, 3 unchanged",
	} {
		out.Reset()
		errb.Reset()
		if code := run(ctx, encode, &out, &errb); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, code, errb.String())
		}
		if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "HNSW index ready") {
			t.Fatalf("run %d: stdout %q, want %q", i+1, out.String(), want)
		}
		wantQueries := "query texts: 3 (whole queries and atoms), 3 encoded"
		if i == 1 {
			wantQueries = "query texts: 3 (whole queries and atoms), 0 encoded"
		}
		if !strings.Contains(out.String(), wantQueries) {
			t.Fatalf("run %d: stdout %q, want %q", i+1, out.String(), wantQueries)
		}
		// stderr is not a terminal here: plain progress lines, no redraws.
		if i == 0 && (!strings.Contains(errb.String(), "encode minilm-static: 3/3 docs (100.0%)") || strings.Contains(errb.String(), "\r")) {
			t.Fatalf("run %d: progress on stderr %q", i+1, errb.String())
		}
	}

	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"encode", "--database-url", db, "--project", "cli"}, 2},
		{[]string{"encode", "--database-url", db, "--encoder", "minilm-static"}, 2},
		{[]string{"encode", "--database-url", db, "--project", "cli", "--encoder", "minilm-static", "--batch", "0"}, 2},
		{[]string{"encode", "--database-url", db, "--project", "nope", "--encoder", "minilm-static"}, 1},
		{[]string{"encode", "--database-url", db, "--project", "cli", "--encoder", "no-such-model"}, 1},
	} {
		errb.Reset()
		if code := run(ctx, tc.args, &out, &errb); code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args[2:], code, tc.code, errb.String())
		}
	}
}
