package main

import (
	"strings"
	"testing"

	"boolpool/server/atoms"
)

// TestDecomposeSetCLI: 'decompose set' saves a corrected decomposition
// through the editor's use case (atoms.SetExpression): quoted atoms or
// letters with --atoms are stored and printed; an atom that is not a
// phrase of the query, a bad expression and an unknown query are refused
// naming the flag, and nothing is stored.
func TestDecomposeSetCLI(t *testing.T) {
	c := newCLITest(t)
	topics := c.write("topics.tsv", "<top>\n<num> Number: 2\n<title> birds of the Andes but not of Colombia\n</top>\n")
	docs := c.write("docs.jsonl", `{"title": "d1", "text": "birds of the Andes"}`+"\n")
	c.must("import", "--project", "p", "--format", "quest", docs)
	c.must("import", "--project", "p", "--format", "trec-topics", topics)

	out, _ := c.must("decompose", "set", "--project", "p", "--query", "2", "--expression", `"birds of the Andes" AND NOT "of Colombia"`)
	if !strings.Contains(out, "2: A AND NOT B") {
		t.Fatalf("quoted atoms: %s", out)
	}
	out, _ = c.must("decompose", "set", "--project", "p", "--query", "2", "--expression", "A AND NOT B", "--atoms", "birds|of Colombia")
	if !strings.Contains(out, "2: A AND NOT B") {
		t.Fatalf("letters with --atoms: %s", out)
	}
	st := c.store()
	p, err := st.ProjectByName(c.ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	q, err := queryByExtID(c.ctx, st, p.ID, "2")
	if err != nil {
		t.Fatal(err)
	}
	if got := atoms.StoredExpression(q); got != "A AND NOT B" || len(q.Atoms) != 2 || q.Atoms[0].Text != "birds" || q.Atoms[1].Text != "of Colombia" {
		t.Fatalf("stored %q over %+v", got, q.Atoms)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--query", "2", "--expression", "A AND B", "--atoms", "birds|zebras"}, "atoms[1]"},
		{[]string{"--query", "2", "--expression", "A AND"}, "--expression"},
		{[]string{"--query", "9", "--expression", `"birds"`}, `--query: no query "9"`},
	} {
		_, errs, code := c.exec(append([]string{"decompose", "set", "--project", "p"}, tt.args...)...)
		if code == 0 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, want an error naming %s: %s", tt.args, code, tt.want, errs)
		}
	}
	q, err = queryByExtID(c.ctx, st, p.ID, "2")
	if err != nil {
		t.Fatal(err)
	}
	if got := atoms.StoredExpression(q); got != "A AND NOT B" || q.Atoms[1].Text != "of Colombia" {
		t.Errorf("a refused change was stored: %q over %+v", got, q.Atoms)
	}
}
