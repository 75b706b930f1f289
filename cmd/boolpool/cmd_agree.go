package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"

	"boolpool/server/agreement"
)

// relevanceScale is the number of grades (0–3) on boolpool's relevance
// scale; Gwet's AC1 counts the scale's categories, not just those used.
const relevanceScale = 4

// binaryRelevant is the lowest grade that counts as relevant when labels
// are binarised ("likely relevant").
const binaryRelevant = 2

// runAgree computes inter-annotator agreement over a ratings file.
func runAgree(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("agree", stderr, "usage: boolpool agree --ratings FILE [--json]")
	path := fs.String("ratings", "", `JSON `+"`file`"+` {"items": [[label 0–3 or null per rater], …]}`)
	asJSON := fs.Bool("json", false, "print JSON instead of a summary")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *path == "" {
		return fmt.Errorf("%w: --ratings is required", errUsage)
	}
	ratings, err := readRatings(ctx, *path)
	if err != nil {
		return err
	}
	rep := agreeReport(ratings)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "items\t%d\t(%d raters)\n", rep.Items, rep.Raters)
	line := func(name string, v *float64, note string) {
		s := fmtOpt(v)
		if note == "" {
			fmt.Fprintf(tw, "%s\t%s\n", name, s)
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, s, note)
	}
	line("fleiss_kappa", rep.FleissKappa, fmt.Sprintf("(%d items rated by every rater)", rep.FleissItems))
	line("krippendorff_alpha_nominal", rep.AlphaNominal, "")
	line("krippendorff_alpha_ordinal", rep.AlphaOrdinal, "")
	line("gwet_ac1", rep.GwetAC1, "(4-point scale)")
	line("cohen_kappa_mean", rep.CohenMean, "(mean over rater pairs)")
	line("unanimous_binarised", rep.Unanimous, fmt.Sprintf("(label >= %d relevant; %d items with >= 2 ratings)", binaryRelevant, rep.UnanimousItems))
	fmt.Fprintln(tw, "\nrater\titems\tmean κ with others\texact agreement with others")
	for _, p := range rep.PerRater {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\n", p.Rater, p.Items, fmtOpt(p.Kappa), fmtOpt(p.Agreement))
	}
	return tw.Flush()
}

// agreeOutput is the --json shape; undefined coefficients are null.
type agreeOutput struct {
	Items          int           `json:"items"`
	Raters         int           `json:"raters"`
	FleissKappa    *float64      `json:"fleiss_kappa"`
	FleissItems    int           `json:"fleiss_items"`
	AlphaNominal   *float64      `json:"krippendorff_alpha_nominal"`
	AlphaOrdinal   *float64      `json:"krippendorff_alpha_ordinal"`
	GwetAC1        *float64      `json:"gwet_ac1"`
	CohenMean      *float64      `json:"cohen_kappa_mean"`
	Unanimous      *float64      `json:"unanimous_binarised"`
	UnanimousItems int           `json:"unanimous_items"`
	PerRater       []raterOutput `json:"per_rater"`
}

type raterOutput struct {
	Rater     int      `json:"rater"`
	Items     int      `json:"items"`
	Kappa     *float64 `json:"cohen_kappa_mean"`
	Agreement *float64 `json:"agreement"`
}

func agreeReport(r agreement.Ratings) agreeOutput {
	fleiss, fleissN := agreement.FleissKappa(r)
	_, cohen := agreement.PairwiseCohen(r)
	unan, unanN := agreement.UnanimousBinarised(r, binaryRelevant)
	var per []raterOutput
	for _, p := range agreement.PerRater(r) {
		per = append(per, raterOutput{Rater: p.Rater, Items: p.Items, Kappa: finite(p.Kappa), Agreement: finite(p.Agree)})
	}
	return agreeOutput{
		PerRater:       per,
		Items:          len(r),
		Raters:         r.Raters(),
		FleissKappa:    finite(fleiss),
		FleissItems:    fleissN,
		AlphaNominal:   finite(agreement.KrippendorffAlpha(r, agreement.Nominal)),
		AlphaOrdinal:   finite(agreement.KrippendorffAlpha(r, agreement.Ordinal)),
		GwetAC1:        finite(agreement.GwetAC1(r, relevanceScale)),
		CohenMean:      finite(cohen),
		Unanimous:      finite(unan),
		UnanimousItems: unanN,
	}
}

func fmtOpt(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4f", *v)
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// readRatings reads {"items": [[0–3 or null, …], …]} and checks every label.
func readRatings(ctx context.Context, path string) (agreement.Ratings, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in struct {
		Items [][]*float64 `json:"items"`
	}
	dec := json.NewDecoder(f)
	if err := dec.Decode(&in); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s: byte %d: %w", path, syn.Offset, err)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("%s: field %s: want a list of lists of labels or null: %w", path, typ.Field, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if in.Items == nil {
		return nil, fmt.Errorf(`%s: no "items" list`, path)
	}
	r := make(agreement.Ratings, len(in.Items))
	for i, item := range in.Items {
		row := make([]int, len(item))
		for j, v := range item {
			switch {
			case v == nil:
				row[j] = agreement.Missing
			case *v != math.Trunc(*v) || *v < 0 || *v >= relevanceScale:
				return nil, fmt.Errorf("%s: items[%d][%d]: label %v is not an integer 0–3 or null", path, i, j, *v)
			default:
				row[j] = int(*v)
			}
		}
		r[i] = row
	}
	return r, nil
}
