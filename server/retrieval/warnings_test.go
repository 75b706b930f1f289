package retrieval

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestBooleanMethodWarnsWithoutExpression: a Boolean method over queries
// that have no stored expression runs them as its plain version and says
// so, per query in the log and counted in the run summary (CLI line, job
// result) with the command that fixes it; empty rankings are warned about
// too. A plain method gives no such warning.
func TestBooleanMethodWarnsWithoutExpression(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p, err := st.EnsureProject(ctx, "warn")
	if err != nil {
		t.Fatal(err)
	}
	expr, _ := json.Marshal(boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))))
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for id, text := range denseDocs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Body: text}); err != nil {
				return err
			}
		}
		if _, err := im.Query(ctx, store.QueryIn{ExtID: "with", Text: "apple not red", Seq: 1,
			Atoms: []store.Atom{{Text: "apple"}, {Text: "red"}}, Expression: expr}); err != nil {
			return err
		}
		if _, err := im.Query(ctx, store.QueryIn{ExtID: "without", Text: "apple that is not red", Seq: 2}); err != nil {
			return err
		}
		_, err := im.Query(ctx, store.QueryIn{ExtID: "nothing", Text: "zebra", Seq: 3})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	res := &Resources{Store: st, ProjectID: p.ID, ProjectName: "warn", Log: slog.New(slog.NewTextHandler(&logBuf, nil))}
	sum, _, _, err := RunProject(ctx, res, RunRequest{Method: "pnorm", Depth: 10, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.NoExpression != 2 || sum.Empty != 1 {
		t.Fatalf("summary: %d without expression, %d empty; want 2 and 1", sum.NoExpression, sum.Empty)
	}
	all := strings.Join(sum.Warnings, "\n")
	for _, want := range []string{"2 of 3 queries have no expression: ran as plain bm25", "boolpool decompose --project warn", "1 of 3 queries got an empty ranking"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", all, want)
		}
	}
	log := logBuf.String()
	for _, want := range []string{`level=WARN msg="query has no Boolean expression: ran as plain bm25" method=pnorm query=without`,
		`query=nothing`, `level=WARN msg="empty ranking" method=pnorm query=nothing`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "query=with ") || strings.Contains(log, "query=with\n") {
		t.Errorf("the query with an expression was warned about:\n%s", log)
	}
	b, _ := json.Marshal(sum)
	if !strings.Contains(string(b), `"no_expression":2`) || !strings.Contains(string(b), `"warnings":[`) {
		t.Errorf("job result JSON lacks the warnings: %s", b)
	}

	logBuf.Reset()
	plain, _, _, err := RunProject(ctx, res, RunRequest{Method: "bm25", Depth: 10, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.NoExpression != 0 || strings.Contains(logBuf.String(), "no Boolean expression") {
		t.Fatalf("plain bm25 warned about expressions: %+v\n%s", plain, logBuf.String())
	}
}
