package boolexpr

import (
	"boolpool/internal/shareddata"
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

type questLine struct {
	Query         string `json:"query"`
	OriginalQuery string `json:"original_query"`
	Metadata      struct {
		Template       string            `json:"template"`
		Atoms          []string          `json:"atoms"`
		Expression     string            `json:"expression"`
		ExpressionTree json.RawMessage   `json:"expression_tree"`
		ExpressionAtom map[string]string `json:"expression_atoms"`
	} `json:"metadata"`
}

func readLines(t *testing.T, path string) []questLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []questLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var l questLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestQuestTrainMarks parses every original_query of QUEST train and checks
// that its marks fit its template. Anomalies (mark count differing from the
// template's atom count) are logged; the test fails if they are more than a
// handful, since the importer relies on this mapping.
func TestQuestTrainMarks(t *testing.T) {
	lines := readLines(t, filepath.Join(shareddata.Dir(t), "quest", "train.jsonl"))
	perTemplate := map[string]int{}
	var anomalies []string
	for i, l := range lines {
		perTemplate[l.Metadata.Template]++
		q, err := QueryFromQuest(l.OriginalQuery, l.Metadata.Template)
		if err != nil {
			anomalies = append(anomalies, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		if err := q.Validate(); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
		if skel := skeleton(q); skel != l.Metadata.Template {
			anomalies = append(anomalies, fmt.Sprintf("line %d: connectives %q differ from template %q", i+1, skel, l.Metadata.Template))
		}
		if q.Marked() != l.OriginalQuery {
			t.Errorf("line %d: Marked() = %q, want %q", i+1, q.Marked(), l.OriginalQuery)
		}
	}
	t.Logf("%d queries, per template %v", len(lines), perTemplate)
	for _, a := range anomalies {
		t.Logf("anomaly: %s", a)
	}
	if len(lines) != 1307 {
		t.Errorf("%d lines, want 1307", len(lines))
	}
	if len(perTemplate) != 7 {
		t.Errorf("%d templates, want 7", len(perTemplate))
	}
	if len(anomalies) > 0 {
		t.Errorf("%d queries whose marks do not fit their template", len(anomalies))
	}
}

// TestDebquestExpressions checks that DebQUEST's metadata.expression strings
// parse to the trees in metadata.expression_tree and to FromTemplate's shape.
func TestDebquestExpressions(t *testing.T) {
	dir := shareddata.Dir(t)
	for _, split := range []string{"train", "val"} {
		lines := readLines(t, filepath.Join(dir, "debquest", split+".jsonl"))
		for i, l := range lines {
			m := l.Metadata
			e, err := Parse(m.Expression)
			if err != nil {
				t.Errorf("%s:%d: %v", split, i+1, err)
				continue
			}
			if got := e.String(); got != m.Expression {
				t.Errorf("%s:%d: prints %q, want %q", split, i+1, got, m.Expression)
			}
			index := map[string]int{}
			for j, id := range m.Atoms {
				index[id] = j
			}
			tree, err := treeFromDebquest(m.ExpressionTree, index)
			if err != nil {
				t.Errorf("%s:%d: expression_tree: %v", split, i+1, err)
				continue
			}
			if !Equal(e, tree) {
				t.Errorf("%s:%d: expression %s != expression_tree %s", split, i+1, e, tree)
			}
			for letter, id := range m.ExpressionAtom {
				if AtomName(index[id]) != letter {
					t.Errorf("%s:%d: expression_atoms %s=%s but atoms puts it at %d", split, i+1, letter, id, index[id])
				}
			}
			want, err := FromTemplate(m.Template, len(m.Atoms))
			if err != nil || !Equal(want, e) {
				t.Errorf("%s:%d: template %q gives %s, data says %s (%v)", split, i+1, m.Template, want, e, err)
			}
			atoms, _, err := ParseMarked(l.OriginalQuery)
			if err != nil || len(atoms) != len(m.Atoms) {
				t.Errorf("%s:%d: %d marks for %d atoms (%v)", split, i+1, len(atoms), len(m.Atoms), err)
			}
		}
		t.Logf("%s: %d expressions checked", split, len(lines))
	}
}

// treeFromDebquest converts DebQUEST's expression_tree (atom ids as string
// leaves, {"op","args"} nodes) to an Expr.
func treeFromDebquest(raw json.RawMessage, index map[string]int) (*Expr, error) {
	var leaf string
	if err := json.Unmarshal(raw, &leaf); err == nil {
		i, ok := index[leaf]
		if !ok {
			return nil, fmt.Errorf("atom %q not in metadata.atoms", leaf)
		}
		return Atom(i), nil
	}
	var node struct {
		Op   string            `json:"op"`
		Args []json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(raw, &node); err != nil {
		return nil, fmt.Errorf("decode node: %w", err)
	}
	e := &Expr{Op: Op(node.Op)}
	for _, a := range node.Args {
		c, err := treeFromDebquest(a, index)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, c)
	}
	return e, e.Validate(len(index))
}

// skeleton replaces each atom span of q by "_", which for QUEST gives back
// the template's wording.
func skeleton(q *Query) string {
	var b []byte
	pos := 0
	for _, s := range q.Spans {
		b = append(b, q.Text[pos:s.Start]...)
		b = append(b, '_')
		pos = s.End
	}
	return string(append(b, q.Text[pos:]...))
}
