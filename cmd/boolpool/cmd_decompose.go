package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"boolpool/server/decompose"
)

// runDecompose splits free-text queries into Boolean expressions over
// atoms, or evaluates the decomposer on a QUEST-format file.
func runDecompose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return decomposeMain(ctx, args, os.Stdin, stdout, stderr)
}

// decomposeOutput is the JSON line printed per query.
type decomposeOutput struct {
	Query string `json:"query,omitempty"`
	decompose.Result
}

// decomposeMain is runDecompose with standard input passed in, so tests
// can feed queries.
func decomposeMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "train" {
		return decomposeTrain(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "set" {
		return decomposeSet(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("decompose", stderr, `usage: boolpool decompose [--json] [--echo] [--rules | --model FILE] ["QUERY"]
       boolpool decompose --eval FILE [--held-out] [--rules | --model FILE] [--json]
       boolpool decompose --project P [--split S] [--only-missing] [--dry-run] [--json]
       boolpool decompose train --quest FILE [--debquest FILE] --out FILE [--cv K]
       boolpool decompose set --project P --query ID --expression EXPR [--atoms LIST] [--force]

Decomposes with the learned model embedded in boolpool (the rules where it is
unsure), or with --rules the hand-written rules alone. Without QUERY, reads one
query per line from standard input. --eval prints template accuracy (also on
queries with a negation), atom count accuracy and atom F1 against the marked
atoms of original_query; with --held-out only the QUEST queries the model held
out of its training. With --project, stores the decomposer's expression of each
of the project's queries (audited, one transaction) and prints how many per
template, how many below the confidence threshold and which failed; without
--only-missing, existing expressions (researchers' corrections too) are replaced.
'decompose set' saves one query's corrected decomposition (decompose set -h).`)
	asJSON := fs.Bool("json", false, "print one JSON object per query (with --eval: the report as JSON; with --project: the summary as JSON)")
	evalPath := fs.String("eval", "", "evaluate on a QUEST-format jsonl `file` (query, original_query, metadata.template)")
	withQuery := fs.Bool("echo", false, "include the input query in the JSON output")
	db := dbFlag(fs)
	project := fs.String("project", "", "store expressions for this project's queries")
	split := fs.String("split", "", "with --project: only this split's queries")
	onlyMissing := fs.Bool("only-missing", false, "with --project: only queries without an expression")
	dryRun := fs.Bool("dry-run", false, "with --project: decompose and summarise, store nothing")
	rulesOnly := fs.Bool("rules", false, "use the hand-written rules, not the learned model")
	modelPath := fs.String("model", "", "use this model `file` (from decompose train) instead of the embedded one")
	heldOut := fs.Bool("held-out", false, "with --eval: only the queries the model held out of its training (its recorded split)")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if *rulesOnly && *modelPath != "" {
		return fmt.Errorf("%w: give --rules or --model, not both", errUsage)
	}
	if *heldOut && *evalPath == "" {
		return fmt.Errorf("%w: --held-out needs --eval", errUsage)
	}
	dec, model, err := chooseDecomposer(*rulesOnly, *modelPath)
	if err != nil {
		return err
	}
	if *project != "" {
		if fs.NArg() > 0 || *evalPath != "" {
			return fmt.Errorf("%w: --project takes no query argument and no --eval", errUsage)
		}
		if *rulesOnly || *modelPath != "" {
			return fmt.Errorf("%w: --project stores the default decomposer's expressions; --rules and --model are for queries and --eval", errUsage)
		}
		return decomposeProject(ctx, *db, *project, decompose.StoreOptions{Split: *split, OnlyMissing: *onlyMissing, DryRun: *dryRun}, *asJSON, stdout)
	}
	if *split != "" || *onlyMissing || *dryRun {
		return fmt.Errorf("%w: --split, --only-missing and --dry-run need --project", errUsage)
	}
	if *evalPath != "" {
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: --eval takes no query argument", errUsage)
		}
		if *heldOut && model == nil {
			return fmt.Errorf("--held-out: no model to take the split from (the rules have none)")
		}
		return decomposeEval(*evalPath, dec, model, *heldOut, *asJSON, stdout)
	}
	emit := func(q string) error {
		r := dec(q)
		if *asJSON {
			out := decomposeOutput{Result: r}
			if *withQuery {
				out.Query = q
			}
			b, err := json.Marshal(out)
			if err != nil {
				return fmt.Errorf("encode: %w", err)
			}
			_, err = fmt.Fprintf(stdout, "%s\n", b)
			return err
		}
		tmpl := r.Template
		if tmpl == "" {
			tmpl = "(no QUEST template)"
		}
		_, err := fmt.Fprintf(stdout, "%s\t%s\t%s\n", q, tmpl, r.Expression.Format(r.Atoms))
		return err
	}
	if fs.NArg() > 0 {
		// Unquoted words are one query, as a shell user would mean them.
		return emit(strings.Join(fs.Args(), " "))
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			continue
		}
		if err := emit(q); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	return nil
}

// chooseDecomposer returns the decomposer the flags ask for and its model
// (nil for the rules).
func chooseDecomposer(rulesOnly bool, modelPath string) (func(string) decompose.Result, *decompose.Model, error) {
	switch {
	case rulesOnly:
		return decompose.Rules, nil, nil
	case modelPath != "":
		m, err := readModelFile(modelPath)
		if err != nil {
			return nil, nil, err
		}
		return m.Decompose, m, nil
	}
	m, err := decompose.DefaultModel()
	if err != nil {
		// Decompose itself falls back to the rules; say so once.
		return decompose.Decompose, nil, nil
	}
	return m.Decompose, m, nil
}

func readModelFile(path string) (*decompose.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	m, err := decompose.ReadModel(f)
	if err != nil {
		return nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return m, nil
}

func readGold(flagName, path string) ([]decompose.Gold, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	defer f.Close()
	items, err := decompose.ReadQuest(f)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s %s: no queries", flagName, path)
	}
	return items, nil
}

func decomposeEval(path string, dec func(string) decompose.Result, model *decompose.Model, heldOut, asJSON bool, stdout io.Writer) error {
	items, err := readGold("--eval", path)
	if err != nil {
		return err
	}
	if heldOut {
		_, items = decompose.SplitHeldOut(items, model.Training.EvalPercent)
		if len(items) == 0 {
			return fmt.Errorf("--eval %s: none of its queries is in the model's held-out split", path)
		}
	}
	rep := decompose.EvaluateWith(items, dec)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.Write(stdout)
}

// decomposeTrain trains the learned decomposer, evaluates it and the rules
// on the held-out QUEST queries, and writes the model file.
func decomposeTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("decompose train", stderr, `usage: boolpool decompose train --quest FILE [--debquest FILE] --out FILE [--cv K]

Trains the template classifier and span tagger on QUEST-format jsonl: the
QUEST file minus a deterministic held-out part (--eval-percent of every
template's queries, those with the smallest FNV-1a hash of their text), plus
all of the DebQUEST file. Prints the model's and the rules' scores on the
held-out part with 95 % intervals and records them in the model file (gzipped
JSON; features are pruned until it is under --max-bytes). With --cv K it also
cross-validates the same recipe over all the QUEST queries (K stratified
folds, each scored by a model trained without it) and records that too.`)
	questPath := fs.String("quest", "", "QUEST train jsonl `file` (required)")
	debPath := fs.String("debquest", "", "DebQUEST train jsonl `file` (optional, all of it is trained on)")
	outPath := fs.String("out", "", "model `file` to write, e.g. server/decompose/model/decomposer.json.gz (required)")
	evalPercent := fs.Int("eval-percent", 20, "percent of the QUEST queries held out for evaluation")
	rulesBelow := fs.Float64("rules-below", 0.8, "keep the rules' reading when the classifier overrules them with a probability below this")
	keepRules := fs.Bool("keep-rules-atoms", true, "when the classifier agrees with the rules' template, keep the rules' atoms")
	maxBytes := fs.Int("max-bytes", 5<<20, "prune features until the model file is at most this size")
	jointWeight := fs.Float64("joint-weight", 0.01, "pick the template by classifier log probability plus this times the tagger's score (0 = classifier alone)")
	lexicon := fs.Bool("lexicon", true, "give the template classifier the category-name lexicon of the training atoms")
	cvFolds := fs.Int("cv", 0, "also cross-validate the recipe over all QUEST queries with this many `folds` (0 = no)")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: decompose train takes no arguments, got %q", errUsage, fs.Args())
	case *questPath == "":
		return fmt.Errorf("%w: --quest is required", errUsage)
	case *outPath == "":
		return fmt.Errorf("%w: --out is required", errUsage)
	case *evalPercent < 1 || *evalPercent > 50:
		return fmt.Errorf("%w: --eval-percent %d: want 1–50", errUsage, *evalPercent)
	case *rulesBelow < 0 || *rulesBelow > 1.01:
		return fmt.Errorf("%w: --rules-below %g: want 0–1", errUsage, *rulesBelow)
	case *jointWeight < 0:
		return fmt.Errorf("%w: --joint-weight %g: want ≥ 0", errUsage, *jointWeight)
	case *cvFolds == 1 || *cvFolds < 0 || *cvFolds > 20:
		return fmt.Errorf("%w: --cv %d: want 0 (none) or 2–20 folds", errUsage, *cvFolds)
	}
	quest, err := readGold("--quest", *questPath)
	if err != nil {
		return err
	}
	var deb []decompose.Gold
	if *debPath != "" {
		if deb, err = readGold("--debquest", *debPath); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	train, held := decompose.SplitHeldOut(quest, *evalPercent)
	if len(held) == 0 || len(train) == 0 {
		return fmt.Errorf("--quest %s: the split leaves %d training and %d held-out queries", *questPath, len(train), len(held))
	}
	opt := decompose.TrainOptions{RulesBelow: *rulesBelow, KeepRulesAtoms: *keepRules, JointWeight: *jointWeight, Lexicon: *lexicon}
	m, err := decompose.Train(append(append([]decompose.Gold{}, train...), deb...), opt)
	if err != nil {
		return err
	}
	m.Training = decompose.TrainingInfo{
		Split:        "stratified: per template, the eval_percent % of its QUEST queries with the smallest FNV-1a64(query text)",
		EvalPercent:  *evalPercent,
		QuestFile:    filepath.Base(*questPath),
		QuestTrain:   len(train),
		QuestHeldOut: len(held),
	}
	if *cvFolds > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		cv, err := decompose.CrossValidate(quest, deb, *cvFolds, opt)
		if err != nil {
			return fmt.Errorf("--cv: %w", err)
		}
		m.Training.CV = &decompose.CVSummary{Folds: *cvFolds, Eval: cv.Summary(), Rules: decompose.EvaluateWith(quest, decompose.Rules).Summary()}
	}
	if *debPath != "" {
		m.Training.DebquestFile, m.Training.DebquestTrain = filepath.Base(*debPath), len(deb)
	}
	var buf bytes.Buffer
	for min := float32(0); ; min = min*2 + 0.001 {
		if min > 0 {
			m.Template.Prune(min)
			m.Tagger.Prune(min)
		}
		// Evaluate the model as it will be written (pruning may change it).
		rep := decompose.EvaluateWith(held, m.Decompose)
		rules := decompose.EvaluateWith(held, decompose.Rules)
		m.Training.Eval, m.Training.RulesEval = rep.Summary(), rules.Summary()
		buf.Reset()
		if err := decompose.WriteModel(&buf, m); err != nil {
			return err
		}
		if buf.Len() <= *maxBytes {
			break
		}
		if min > 1 {
			return fmt.Errorf("model is %d bytes even with features under %.3f pruned; raise --max-bytes", buf.Len(), min)
		}
	}
	if err := os.WriteFile(*outPath, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	tr := m.Training
	fmt.Fprintf(stdout, "trained on %d QUEST + %d DebQUEST queries; held out %d QUEST queries (%d%%)\n", tr.QuestTrain, tr.DebquestTrain, tr.QuestHeldOut, tr.EvalPercent)
	fmt.Fprintf(stdout, "wrote %s (%d bytes; %d classifier and %d tagger features)\n", *outPath, buf.Len(), len(m.Template.Features), len(m.Tagger.Features))
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "held-out QUEST (n=%d)\ttemplate acc [95%%]\tnegation acc [95%%]\tatom count acc\tatom token F1 [95%%]\tatom exact F1\n", tr.QuestHeldOut)
	type row struct {
		name string
		s    decompose.EvalSummary
	}
	rows := []row{{"model", tr.Eval}, {"rules", tr.RulesEval}}
	if tr.CV != nil {
		rows = append(rows, row{fmt.Sprintf("model, %d-fold CV over all %d", tr.CV.Folds, tr.CV.Eval.All.N), tr.CV.Eval},
			row{fmt.Sprintf("rules, all %d", tr.CV.Rules.All.N), tr.CV.Rules})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%s\t%.3f\n", r.name, withInterval(r.s.All.TemplateAccuracy, r.s.All.TemplateInterval),
			withInterval(r.s.Negation.TemplateAccuracy, r.s.Negation.TemplateInterval), r.s.All.AtomCountAccuracy,
			withInterval(r.s.All.TokenF1, r.s.All.TokenF1Interval), r.s.All.ExactF1)
	}
	return tw.Flush()
}

// withInterval formats a score with its 95 % interval.
func withInterval(v float64, interval func() (float64, float64)) string {
	lo, hi := interval()
	return fmt.Sprintf("%.3f [%.3f, %.3f]", v, lo, hi)
}

// decomposeProject stores the decomposer's expressions for a project's
// queries and prints the summary.
func decomposeProject(ctx context.Context, db, name string, opts decompose.StoreOptions, asJSON bool, stdout io.Writer) error {
	st, p, err := openProject(ctx, db, name)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := decompose.StoreProjectExpressions(ctx, st, p.ID, opts)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return writeDecomposeSummary(stdout, name, sum)
}

func writeDecomposeSummary(w io.Writer, project string, sum decompose.Summary) error {
	verb := "stored"
	if sum.DryRun {
		verb = "would store (dry run, nothing stored)"
	}
	fmt.Fprintf(w, "project %s: %d queries; %s %d expressions", project, sum.Queries, verb, sum.Stored)
	if sum.Skipped > 0 {
		fmt.Fprintf(w, "; %d skipped (already had one)", sum.Skipped)
	}
	fmt.Fprintf(w, "; %d failed", len(sum.Failed))
	if sum.Stored > 0 {
		fmt.Fprintf(w, "; %d below confidence %.2f", sum.LowConfidence, sum.ConfidenceThreshold)
	}
	fmt.Fprintln(w)
	if len(sum.ByTemplate) > 0 {
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "template\tqueries")
		for _, tc := range sum.ByTemplate {
			t := tc.Template
			if t == "" {
				t = "(no QUEST template)"
			}
			fmt.Fprintf(tw, "%s\t%d\n", t, tc.Queries)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, f := range sum.Failed {
		fmt.Fprintf(w, "failed\t%s\t%q\t%s\n", f.ExtID, f.Text, f.Reason)
	}
	return nil
}
