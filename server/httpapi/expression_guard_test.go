package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/export"
)

// TestExpressionGuards (issue 17, defect 7): once a query has judgments
// whose attributions number its atoms, an expression change that would
// renumber them is refused (409 on atoms) unless forced, and the forced
// change is audited with its mapping; atoms may be added at the end; an
// atom that is not a phrase of the query, or is huge, is refused naming
// atoms[i].
func TestExpressionGuards(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	a1 := e.login("annotator1")
	qid := e.fx.Queries["q1"]
	var item int64
	for _, tk := range a1.queue("relevance", 10).Tasks {
		if tk.Query.ID == qid {
			item = tk.ItemID
			break
		}
	}
	if item == 0 {
		t.Fatal("no q1 item leased")
	}
	req := api.JudgmentRequest{ClientID: uuid(71), AuthorID: a1.id, ItemID: item, Kind: "relevance", Relevance: rel(2), Evidence: "complete",
		Attributions: []api.Attribution{{Atom: 0, Sentences: []int{0}, Satisfied: "yes"}, {Atom: 1, Satisfied: "no"}}}
	if st := a1.do("POST", "/api/judgments", req, nil); st != 201 {
		t.Fatalf("judge: %d", st)
	}

	u := e.login("researcher")
	path := fmt.Sprintf("/api/queries/%d/expression", qid)
	// Swapped atoms: A and B would change meaning under the judgment.
	swapped := api.ExpressionRequest{Expression: "B AND NOT A", Atoms: []string{"birds of Colombia", "Birds of the Venezuelan Andes"}}
	var p api.Problem
	if st := u.do("PUT", path, swapped, &p); st != 409 || p.Field != "atoms" || !strings.Contains(p.Detail, "1 judgments") || !strings.Contains(p.Detail, "force") {
		t.Errorf("renumbering: %d %+v, want 409 on atoms naming the judgments and force", st, p)
	}
	// Dropping an atom renumbers too.
	if st := u.do("PUT", path, api.ExpressionRequest{Expression: "A", Atoms: []string{"Birds of the Venezuelan Andes"}}, &p); st != 409 {
		t.Errorf("dropping B: %d, want 409", st)
	}
	// Adding one at the end keeps A and B.
	var got api.QueryExpression
	add := api.ExpressionRequest{Expression: "(A AND C) AND NOT B", Atoms: []string{"Birds of the Venezuelan Andes", "birds of Colombia", "Venezuelan Andes"}}
	if st := u.do("PUT", path, add, &got); st != 200 || got.Expression != "(A AND C) AND NOT B" {
		t.Errorf("append: %d %+v", st, got)
	}
	// Forced: stored, with the mapping in the audit log.
	swapped.Force = true
	if st := u.do("PUT", path, swapped, &got); st != 200 || got.Atoms[0] != "birds of Colombia" {
		t.Errorf("forced: %d %+v", st, got)
	}
	var detail string
	if err := e.st.Pool().QueryRow(ctx, `SELECT detail::text FROM audit_log WHERE action = 'query.expression' ORDER BY id DESC LIMIT 1`).Scan(&detail); err != nil ||
		!strings.Contains(detail, `"renumbered"`) || !strings.Contains(detail, `"new_index": [1, 0, -1]`) {
		t.Errorf("audit detail = %s (%v), want the renumbering [1, 0, -1]", detail, err)
	}

	// Atoms must be phrases of the query, and short.
	for _, tc := range []struct {
		name string
		req  api.ExpressionRequest
	}{
		{"not in the query", api.ExpressionRequest{Expression: "A AND NOT B", Atoms: []string{"birds of Colombia", "Pokémon trading cards"}}},
		{"600 bytes of query words", api.ExpressionRequest{Expression: "A AND NOT B", Atoms: []string{"birds of Colombia", strings.Repeat("birds ", 100)}}},
	} {
		tc.req.Force = true
		p = api.Problem{}
		if st := u.do("PUT", path, tc.req, &p); st != 400 || p.Field != "atoms[1]" || len(p.Detail) > 2000 {
			t.Errorf("%s: %d %.300q on %q, want 400 on atoms[1]", tc.name, st, p.Detail, p.Field)
		}
	}
	// 200,000 characters do not get in (the body bound or the atom bound).
	huge := api.ExpressionRequest{Expression: "A AND NOT B", Atoms: []string{"birds of Colombia", strings.Repeat("birds ", 33334)}, Force: true}
	if st := u.do("PUT", path, huge, nil); st != 400 && st != 413 {
		t.Errorf("200,000 characters: %d, want 400 or 413", st)
	}
	// The decomposer's head-noun sharing is accepted ("Birds of Colombia" is
	// not in the text, its words are).
	ok := api.ExpressionRequest{Expression: "A AND NOT B", Atoms: []string{"birds of Colombia", "Birds of the Andes"}, Force: true}
	if st := u.do("PUT", path, ok, &p); st != 200 {
		t.Errorf("recombined phrase: %d %+v", st, p)
	}

	// The QUEST export follows the stored decomposition.
	var buf bytes.Buffer
	if _, err := export.Write(ctx, e.st, e.fx.Project.ID, "quest", &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "Venezuelan") {
			line = l
		}
	}
	for _, want := range []string{
		`"original_query": "Birds of the Venezuelan Andes but not <mark>birds of Colombia</mark>"`,
		`"atoms": ["birds of Colombia","Birds of the Andes"]`, `"expression": "A AND NOT B"`, `"template": "_ that are not _"`,
	} {
		if !strings.Contains(line, want) {
			t.Errorf("QUEST line %s\nlacks %s", line, want)
		}
	}
}
