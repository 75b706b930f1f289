package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"boolpool/api"
	"boolpool/server/atoms"
	"boolpool/server/store"
)

const decomposeSetUsage = `usage: boolpool decompose set --project P --query ID --expression EXPR [--atoms "A text|B text|…"] [--force]

Saves a corrected decomposition of one query, as the query-expression editor
does (the same checks: each atom is a phrase of the query; atoms that would
renumber judged attributions are refused without --force; audited). EXPR is
over the letters A, B, … of --atoms, or quotes its atoms itself:
  --expression '(A AND B) AND NOT C' --atoms 'birds|of the Andes|of Colombia'
  --expression '"birds" AND NOT "of Colombia"'`

// decomposeSet is 'boolpool decompose set': atoms.SetExpression, the use
// case of PUT /api/queries/:id/expression, from the command line.
func decomposeSet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("decompose set", stderr, decomposeSetUsage)
	db := dbFlag(fs)
	project := fs.String("project", "", "the project")
	query := fs.String("query", "", "the query's `id` (its ext id)")
	expression := fs.String("expression", "", "the Boolean expression")
	atomTexts := fs.String("atoms", "", "the atoms' texts in order, separated by |")
	force := fs.Bool("force", false, "renumber the atoms judged attributions refer to (recorded in the audit log)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" || *query == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%w: --project and --query are required, and nothing else", errUsage)
	}
	req := api.ExpressionRequest{Expression: *expression, Force: *force}
	if *atomTexts != "" {
		req.Atoms = strings.Split(*atomTexts, "|")
	}
	e, texts, perr := api.ParseExpressionRequest(req)
	if perr != nil {
		return fmt.Errorf("%w: %s: %s", errUsage, expressionFlag(perr.Field), perr.Reason)
	}
	st, p, err := openProject(ctx, *db, *project)
	if err != nil {
		return err
	}
	defer st.Close()
	q, err := queryByExtID(ctx, st, p.ID, *query)
	if err != nil {
		return err
	}
	q, stale, err := atoms.SetExpression(ctx, st, 0, q, atoms.ExpressionEdit{Expr: e, Atoms: texts, Force: *force})
	if err != nil {
		return flagError(err)
	}
	fmt.Fprintf(stdout, "%s: %s (template %s)\n", q.ExtID, atoms.StoredExpression(q), q.Template)
	if stale > 0 {
		fmt.Fprintf(stdout, "%d judgments have attributions made under the old expression: their flags may be stale\n", stale)
	}
	return nil
}

// expressionFlag names the flag of a field of the expression request.
func expressionFlag(field string) string {
	if strings.HasPrefix(field, "atoms[") {
		return "--atoms (" + field + ")"
	}
	return "--" + field
}

// queryByExtID finds a project's query by its ext id.
func queryByExtID(ctx context.Context, st *store.Store, projectID int64, extID string) (store.Query, error) {
	qs, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return store.Query{}, err
	}
	for _, q := range qs {
		if q.ExtID == extID {
			return q, nil
		}
	}
	return store.Query{}, fmt.Errorf("--query: no query %q in the project", extID)
}
