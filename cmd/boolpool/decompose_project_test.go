package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/server/decompose"
)

// TestDecomposeProjectCLI: import topics without structure, then
// 'decompose --project P --dry-run' stores nothing, 'decompose --project P'
// stores the expressions and prints the per-template summary and the
// failures, and a Boolean retrieval afterwards no longer warns.
func TestDecomposeProjectCLI(t *testing.T) {
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	topics := c.write("topics.tsv", "<top>\n<num> Number: 1\n<title> cats or dogs\n</top>\n<top>\n<num> Number: 2\n<title> birds of the Andes but not of Colombia\n</top>\n<top>\n<num> Number: 3\n<title> pie\n</top>\n")
	docs := c.write("docs.jsonl", `{"title": "d1", "text": "cats and dogs"}`+"\n"+`{"title": "d2", "text": "birds of the Andes"}`+"\n")
	must := c.must
	must("import", "--project", "p", "--format", "quest", docs)
	must("import", "--project", "p", "--format", "trec-topics", topics)
	// Importers may run the decomposer themselves; start from queries
	// without expressions, as older imports left them.
	st, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE queries SET expression = NULL, atoms = '[]'`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, errs := must("retrieve", "--project", "p", "--method", "pnorm", "--depth", "5", "--no-store")
	if !strings.Contains(errs, "warning: 3 of 3 queries have no expression: ran as plain bm25") || !strings.Contains(errs, "boolpool decompose --project p") {
		t.Fatalf("retrieve before decompose: %s", errs)
	}
	out, _ := must("decompose", "--project", "p", "--dry-run")
	if !strings.Contains(out, "would store (dry run, nothing stored) 3 expressions") {
		t.Fatalf("dry run: %s", out)
	}
	out, _ = must("decompose", "--project", "p", "--only-missing", "--json")
	var sum decompose.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sum.Stored != 3 || len(sum.ByTemplate) != 3 {
		t.Fatalf("summary %+v", sum)
	}
	out, _ = must("decompose", "--project", "p")
	for _, want := range []string{"project p: 3 queries; stored 3 expressions; 0 failed", "_ or _", "_ that are not _"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	_, errs = must("retrieve", "--project", "p", "--method", "pnorm", "--depth", "5", "--no-store")
	if strings.Contains(errs, "no expression") {
		t.Fatalf("retrieve after decompose still warns: %s", errs)
	}
	for _, args := range [][]string{{"decompose", "--only-missing"}, {"decompose", "--project", "p", "cats"}} {
		var errb bytes.Buffer
		if code := run(ctx, args, &bytes.Buffer{}, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
	if _, errs, code := c.exec("decompose", "--project", "nope"); code == 0 || !strings.Contains(errs, `no project "nope"`) {
		t.Errorf("unknown project: exit %d: %s", code, errs)
	}
}
