package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"boolpool/server/atompool"
	"boolpool/server/atoms"
	"boolpool/server/store"
)

// runAtoms manages a project's shared constraints (issue 13):
//
//	atoms sync      link every query's atoms to shared atoms by normalised text
//	atoms list      the atoms, their uses and label counts
//	atoms merge     --into KEY --from KEY
//	atoms split     --atom KEY --uses QUERY:INDEX,... [--key NEW] [--text TEXT]
//	atoms labels    --file FILE (atom text<TAB>document<TAB>0|1|unsure): store atom labels
//	atoms variants  generate every query's Boolean variants as variant queries
//	atoms check     cross-query consistency flags (direct consensus vs atoms)
//	atoms pool      create constraint items: [--run NAME,... --depth K] [--limit N] [--gold N]
//	atoms derived   per query derived relevant / non-relevant / unknown counts
func runAtoms(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "usage: boolpool atoms sync|list|merge|split|labels|variants|check|pool|derived --project P [...]"
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, usage)
	}
	sub, rest := args[0], args[1:]
	fs := newFlagSet("atoms "+sub, stderr, usage)
	pf := addProjectFlags(fs)
	into := fs.String("into", "", "merge: the atom `key` to keep")
	from := fs.String("from", "", "merge: the atom `key` merged into --into")
	atomKey := fs.String("atom", "", "split: the atom `key` to split")
	uses := fs.String("uses", "", "split: comma-separated `QUERY:INDEX` uses moved to the new atom")
	newKey := fs.String("key", "", "split: the new atom's key (default: KEY (2), (3), …)")
	newText := fs.String("text", "", "split: the new atom's display text (default: the first moved use's text)")
	file := fs.String("file", "", "labels: atom labels `FILE` (atom text<TAB>document<TAB>0|1|unsure; .gz allowed)")
	runs := fs.String("run", "", "pool: comma-separated run `names` whose top --depth documents give the (atom, document) pairs (default: the pooled relevance items' documents)")
	depth := fs.Int("depth", 20, "pool: documents per query and run")
	limit := fs.Int("limit", 1000, "pool: most constraint items to create")
	gold := fs.Int("gold", 0, "pool: this many imported atom labels become gold constraint items")
	st, p, err := pf.parseAndOpen(ctx, fs, rest)
	if err != nil {
		return err
	}
	defer st.Close()
	switch sub {
	case "sync":
		rep, err := atoms.Sync(ctx, st, p.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d queries, %d atom uses: %d linked now, %d atoms created\n", rep.Queries, rep.Uses, rep.Linked, rep.Created)
	case "list":
		return listAtoms(ctx, st, p.ID, stdout)
	case "merge":
		ids, err := atomIDs(ctx, st, p.ID)
		if err != nil {
			return err
		}
		a, b := ids[*into], ids[*from]
		if a == 0 || b == 0 {
			return fmt.Errorf("%w: --into and --from must name atom keys of the project (see atoms list)", errUsage)
		}
		n, err := st.MergeAtoms(ctx, 0, p.ID, a, b)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %q into %q (%d conflicting labels set to unsure)\n", *from, *into, n)
	case "split":
		return splitAtom(ctx, st, p.ID, *atomKey, *uses, *newKey, *newText, stdout)
	case "labels":
		return importAtomLabels(ctx, st, p.ID, *file, stdout)
	case "variants":
		n, err := atoms.GenerateVariants(ctx, st, p.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d variant queries written\n", n)
	case "check":
		flags, err := atompool.ProjectInconsistencies(ctx, st, p.ID)
		if err != nil {
			return err
		}
		for _, f := range flags {
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", f.Doc, f.Query, f.Other, f.Reason)
		}
		fmt.Fprintf(stderr, "%d inconsistencies\n", len(flags))
	case "pool":
		req := atompool.ConstraintPoolRequest{Depth: *depth, Limit: *limit, Gold: *gold}
		for _, r := range strings.Split(*runs, ",") {
			if r = strings.TrimSpace(r); r != "" {
				req.Runs = append(req.Runs, r)
			}
		}
		res, err := atompool.Pool(ctx, st, p.ID, req)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d candidate (atom, document) pairs: %d constraint items created (%d gold)\n", res.Candidates, res.Created, res.Gold)
	case "derived":
		sum, err := atompool.Summary(ctx, st, p.ID, true)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "query\trelevant\tnon-relevant\tunknown\tdirect\tconflicts\texpression")
		for _, q := range sum.Queries {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", q.QueryExtID, q.Relevant, q.NonRelevant, q.Unknown, q.Direct, q.Conflicts, q.Expression)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%d constraint items, %d with a consensus label, %d judgments; %d consistency flags\n",
			sum.Constraint.Items, sum.Constraint.Judged, sum.Constraint.Judgments, len(sum.Flags))
	default:
		return fmt.Errorf("%w: unknown atoms subcommand %q; %s", errUsage, sub, usage)
	}
	return nil
}

func atomIDs(ctx context.Context, st *store.Store, projectID int64) (map[string]int64, error) {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, l := range links {
		out[l.Key] = l.AtomID
	}
	return out, nil
}

func listAtoms(ctx context.Context, st *store.Store, projectID int64, w io.Writer) error {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return err
	}
	labels, err := st.AtomLabels(ctx, projectID)
	if err != nil {
		return err
	}
	counts := map[string]map[string]int{}
	for _, l := range labels {
		if counts[l.Key] == nil {
			counts[l.Key] = map[string]int{}
		}
		counts[l.Key][l.Label]++
	}
	type row struct {
		text string
		uses []string
	}
	rows := map[string]*row{}
	var keys []string
	for _, l := range links {
		r := rows[l.Key]
		if r == nil {
			r = &row{text: l.AtomText}
			rows[l.Key] = r
			keys = append(keys, l.Key)
		}
		r.uses = append(r.uses, fmt.Sprintf("%s:%d", l.QueryExtID, l.AtomIndex))
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "key\ttext\tuses\tyes/no/unsure\tqueries")
	for _, k := range keys {
		r, c := rows[k], counts[k]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d/%d\t%s\n", k, r.text, len(r.uses), c["yes"], c["no"], c["unsure"], strings.Join(r.uses, ","))
	}
	return tw.Flush()
}

func splitAtom(ctx context.Context, st *store.Store, projectID int64, key, uses, newKey, newText string, w io.Writer) error {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return err
	}
	var atomID int64
	byUse := map[string]store.AtomLink{}
	taken := map[string]bool{}
	for _, l := range links {
		taken[l.Key] = true
		if l.Key == key {
			atomID = l.AtomID
			byUse[fmt.Sprintf("%s:%d", l.QueryExtID, l.AtomIndex)] = l
		}
	}
	if atomID == 0 {
		return fmt.Errorf("%w: --atom %q is not an atom key of the project (see atoms list)", errUsage, key)
	}
	var moved []store.AtomUse
	for _, u := range splitList(uses) {
		l, ok := byUse[u]
		if !ok {
			return fmt.Errorf("%w: --uses: %q is not a use of %q (QUERY:INDEX)", errUsage, u, key)
		}
		moved = append(moved, store.AtomUse{QueryID: l.QueryID, AtomIndex: l.AtomIndex})
		if newText == "" {
			newText = l.UseText
		}
	}
	if newKey == "" {
		for n := 2; ; n++ {
			if k := fmt.Sprintf("%s (%d)", key, n); !taken[k] {
				newKey = k
				break
			}
		}
	}
	if _, err := st.SplitAtom(ctx, 0, projectID, atomID, moved, newKey, newText); err != nil {
		return err
	}
	fmt.Fprintf(w, "moved %d uses of %q to %q\n", len(moved), key, newKey)
	return nil
}

func importAtomLabels(ctx context.Context, st *store.Store, projectID int64, path string, w io.Writer) error {
	if path == "" {
		return fmt.Errorf("%w: --file is required", errUsage)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	ids, err := atomIDs(ctx, st, projectID)
	if err != nil {
		return err
	}
	ls, skipped, err := atoms.ReadLabelFile(r, ids)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := st.SetAtomLabels(ctx, projectID, ls); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d atom labels stored; %d lines for atoms the project does not use skipped\n", len(ls), skipped)
	return nil
}
