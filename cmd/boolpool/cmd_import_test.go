package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportExportCLI drives the commands as a user would: exit codes,
// messages naming file/line/field, and nothing imported from a bad file.
func TestImportExportCLI(t *testing.T) {
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	var out, errb bytes.Buffer
	line := `{"query": "Cats or dogs", "docs": ["Tom"], "original_query": "<mark>Cats</mark> or <mark>Dogs</mark>", "scores": null, "metadata": {"template": "_ or _"}}`
	good := c.write("good.jsonl", line+"\n")
	bad := c.write("bad.jsonl", line+"\n"+`{"query": "x", "docs": [1]}`+"\n")

	out.Reset()
	errb.Reset()
	code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", bad}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), bad+":2: field docs:") || !strings.Contains(errb.String(), "nothing of this file was imported") {
		t.Fatalf("bad import: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(ctx, []string{"export", "--database-url", db, "--project", "cli", "--format", "quest"}, &out, &errb); code != 0 || out.Len() != 0 {
		t.Fatalf("after a failed import the project must be empty: exit %d, out %q, err %q", code, out.String(), errb.String())
	}

	if code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", good}, &out, &errb); code != 0 {
		t.Fatalf("good import exit %d: %s", code, errb.String())
	}
	exported := filepath.Join(c.dir, "out.jsonl")
	if code := run(ctx, []string{"export", "--database-url", db, "--project", "cli", "--format", "quest", "--out", exported}, &out, &errb); code != 0 {
		t.Fatalf("export exit %d: %s", code, errb.String())
	}
	got, _ := os.ReadFile(exported)
	want := `{"query": "Cats or dogs", "docs": ["Tom"], "original_query": "<mark>Cats</mark> or <mark>Dogs</mark>", "scores": null, "metadata": {"template": "_ or _"}}` + "\n"
	if string(got) != want {
		t.Fatalf("export:\n%s\nwant:\n%s", got, want)
	}

	errb.Reset()
	if code := run(ctx, []string{"import", "--project", "cli"}, &out, &errb); code != 2 {
		t.Fatalf("usage error exit %d, want 2", code)
	}
}

// TestImportMaxLine: the import command honours --max-line (and
// BOOLPOOL_MAX_LINE): a line over it fails naming file and line.
func TestImportMaxLine(t *testing.T) {
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	var out, errb bytes.Buffer
	path := c.write("long.jsonl", `{"query": "`+strings.Repeat("x", 2000)+`", "docs": []}`+"\n")
	code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", "--max-line", "1024", path}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), path+":1: line 1 longer than 1024 bytes") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	t.Setenv("BOOLPOOL_MAX_LINE", "1500")
	errb.Reset()
	code = run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", path}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "longer than 1500 bytes") {
		t.Fatalf("env: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", "--max-line", "4096", path}, &out, &errb); code != 0 {
		t.Fatalf("under the limit: exit %d, stderr %q", code, errb.String())
	}
}

// TestImportProgressOffTerminal: imported with stderr in a log file, the
// progress is plain lines (here: every update), never a carriage return.
func TestImportProgressOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "import.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := newByteProgress(f, false)
	b.interval = 0
	b.update("docs.jsonl", 50, 100)
	b.update("docs.jsonl", 100, 100)
	b.done()
	got, _ := os.ReadFile(f.Name())
	if strings.Contains(string(got), "\r") || strings.Count(string(got), "\n") != 2 || !strings.HasPrefix(string(got), "import docs.jsonl:  50%") {
		t.Fatalf("log: %q", got)
	}
}

// TestImportDuplicatesAndMaxImportBytes: the import command reports
// repeated records with their first lines, and honours
// --max-import-bytes, naming the file and the flag.
func TestImportDuplicatesAndMaxImportBytes(t *testing.T) {
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	var out, errb bytes.Buffer
	docs := c.write("docs.jsonl", strings.Repeat(`{"title": "Tom", "text": "A cat."}`+"\n", 4))
	if code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", docs}, &out, &errb); code != 0 {
		t.Fatalf("import exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), ": 1 documents,") || !strings.Contains(out.String(), "duplicates: 3 records repeated an earlier one (the last one wins), first at lines 2, 3, 4") {
		t.Fatalf("stdout %q", out.String())
	}
	out.Reset()
	errb.Reset()
	big := c.write("big.jsonl", strings.Repeat(`{"title": "Tom", "text": "A cat."}`+"\n", 100))
	code := run(ctx, []string{"import", "--database-url", db, "--project", "cli", "--format", "quest", "--max-line", "1024", "--max-import-bytes", "2048", big}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), big+":") || !strings.Contains(errb.String(), "more than 2048 bytes (decompressed; the -max-import-bytes limit)") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
