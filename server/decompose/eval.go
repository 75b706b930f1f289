package decompose

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode"

	"boolpool/server/boolexpr"
)

// Gold is one evaluation item: the free-text query and its gold structure.
type Gold struct {
	Query    string
	Template string
	Atoms    []string
	Expr     *boolexpr.Expr
}

// ReadQuest reads QUEST-format jsonl (query, original_query with <mark>
// atoms, metadata.template) into gold items. Errors name the line.
func ReadQuest(r io.Reader) ([]Gold, error) {
	var out []Gold
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l struct {
			Query         string `json:"query"`
			OriginalQuery string `json:"original_query"`
			Metadata      struct {
				Template string `json:"template"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		q, err := boolexpr.QueryFromQuest(l.OriginalQuery, l.Metadata.Template)
		if err != nil {
			return nil, fmt.Errorf("line %d: original_query: %w", n, err)
		}
		out = append(out, Gold{Query: l.Query, Template: q.Template, Atoms: q.Atoms, Expr: q.Expr})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return out, nil
}

// Scores are the averages over a set of queries.
//
// Atom scores are macro-averaged per query. An atom pairs only with an atom
// of the same polarity (negated or not), one to one. ExactF1 counts a pair
// when the normalised texts are equal (lower case, punctuation and spaces
// collapsed). TokenF1 credits each pair with the F1 of their content-token
// bags (stop words such as "of", "the", "from" dropped, a trailing plural
// "s" stripped), pairs chosen greedily by that score; precision is the
// credit over predicted atoms, recall over gold atoms.
//
// AtomCountAccuracy is the share of queries given as many atoms as the
// gold structure has.
type Scores struct {
	N                 int     `json:"n"`
	TemplateCorrect   int     `json:"template_correct"`
	TemplateAccuracy  float64 `json:"template_accuracy"`
	AtomCountCorrect  int     `json:"atom_count_correct"`
	AtomCountAccuracy float64 `json:"atom_count_accuracy"`
	ExactF1           float64 `json:"atom_exact_f1"`
	TokenF1           float64 `json:"atom_token_f1"`
	// TokenF1SD is the standard deviation of the per-query token F1
	// (for its confidence interval).
	TokenF1SD float64 `json:"atom_token_f1_sd,omitempty"`
}

// TemplateInterval is the 95 % Wilson interval of the template accuracy.
func (s Scores) TemplateInterval() (lo, hi float64) { return Wilson(s.TemplateCorrect, s.N) }

// TokenF1Interval is the 95 % normal interval of the mean token F1.
func (s Scores) TokenF1Interval() (lo, hi float64) {
	if s.N == 0 {
		return 0, 1
	}
	h := 1.959963984540054 * s.TokenF1SD / math.Sqrt(float64(s.N))
	return math.Max(0, s.TokenF1-h), math.Min(1, s.TokenF1+h)
}

// Report is the result of Evaluate.
type Report struct {
	Scores
	// Negation scores the queries whose gold expression negates an atom
	// ("_ that are not _", "_ that are also _ but not _").
	Negation    Scores             `json:"negation"`
	PerTemplate map[string]*Scores `json:"per_template"`
	// Confusion counts gold template → predicted template ("" = none).
	Confusion map[string]map[string]int `json:"confusion"`
}

// Evaluate decomposes every gold query with the default decomposer
// (Decompose) and scores the result.
func Evaluate(items []Gold) Report { return EvaluateWith(items, Decompose) }

// EvaluateWith decomposes every gold query with decompose and scores the
// result.
func EvaluateWith(items []Gold, decompose func(string) Result) Report {
	rep := Report{PerTemplate: map[string]*Scores{}, Confusion: map[string]map[string]int{}}
	sumSq := map[*Scores]float64{}
	for _, g := range items {
		r := decompose(g.Query)
		exact, token := AtomF1(r.Atoms, r.Expression, g.Atoms, g.Expr)
		ok := r.Template == g.Template
		scores := []*Scores{&rep.Scores, rep.perTemplate(g.Template)}
		if g.Expr != nil && len(g.Expr.NegatedAtoms()) > 0 {
			scores = append(scores, &rep.Negation)
		}
		for _, s := range scores {
			s.N++
			if ok {
				s.TemplateCorrect++
			}
			if len(r.Atoms) == len(g.Atoms) {
				s.AtomCountCorrect++
			}
			s.ExactF1 += exact
			s.TokenF1 += token
			sumSq[s] += token * token
		}
		if rep.Confusion[g.Template] == nil {
			rep.Confusion[g.Template] = map[string]int{}
		}
		rep.Confusion[g.Template][r.Template]++
	}
	for _, s := range append([]*Scores{&rep.Scores, &rep.Negation}, rep.templateScores()...) {
		if s.N > 0 {
			s.TemplateAccuracy = float64(s.TemplateCorrect) / float64(s.N)
			s.AtomCountAccuracy = float64(s.AtomCountCorrect) / float64(s.N)
			s.ExactF1 /= float64(s.N)
			s.TokenF1 /= float64(s.N)
			s.TokenF1SD = math.Sqrt(math.Max(0, sumSq[s]/float64(s.N)-s.TokenF1*s.TokenF1))
		}
	}
	return rep
}

func (r *Report) perTemplate(t string) *Scores {
	s := r.PerTemplate[t]
	if s == nil {
		s = &Scores{}
		r.PerTemplate[t] = s
	}
	return s
}

func (r *Report) templateScores() []*Scores {
	var out []*Scores
	for _, t := range r.templateNames() {
		out = append(out, r.PerTemplate[t])
	}
	return out
}

// templateNames lists the report's templates, QUEST's order first.
func (r *Report) templateNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, t := range boolexpr.Templates() {
		if r.PerTemplate[t] != nil {
			names = append(names, t)
			seen[t] = true
		}
	}
	var rest []string
	for t := range r.PerTemplate {
		if !seen[t] {
			rest = append(rest, t)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// Write prints the report as a plain-text table.
func (r *Report) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-32s %5s %9s %9s %9s %9s\n", "template", "n", "tmpl_acc", "count_acc", "exact_f1", "token_f1")
	row := func(name string, s *Scores) {
		fmt.Fprintf(bw, "%-32s %5d %9.3f %9.3f %9.3f %9.3f\n", name, s.N, s.TemplateAccuracy, s.AtomCountAccuracy, s.ExactF1, s.TokenF1)
	}
	for _, t := range r.templateNames() {
		row(fmt.Sprintf("%q", t), r.PerTemplate[t])
	}
	row("negation (gold has NOT)", &r.Negation)
	row("all", &r.Scores)
	fmt.Fprintln(bw, "\n95 % intervals (template accuracy: Wilson; token F1: normal)")
	for _, x := range []struct {
		name string
		s    Scores
	}{{"negation (gold has NOT)", r.Negation}, {"all", r.Scores}} {
		tl, th := x.s.TemplateInterval()
		fl, fh := x.s.TokenF1Interval()
		fmt.Fprintf(bw, "%-32s %5d  tmpl_acc %.3f [%.3f, %.3f]  token_f1 %.3f [%.3f, %.3f]\n", x.name, x.s.N, x.s.TemplateAccuracy, tl, th, x.s.TokenF1, fl, fh)
	}
	fmt.Fprintln(bw, "\nconfusion (gold -> predicted: count)")
	for _, t := range r.templateNames() {
		preds := make([]string, 0, len(r.Confusion[t]))
		for p := range r.Confusion[t] {
			preds = append(preds, p)
		}
		sort.Slice(preds, func(i, j int) bool { return r.Confusion[t][preds[i]] > r.Confusion[t][preds[j]] })
		var cells []string
		for _, p := range preds {
			name := p
			if name == "" {
				name = "(none)"
			}
			cells = append(cells, fmt.Sprintf("%q: %d", name, r.Confusion[t][p]))
		}
		fmt.Fprintf(bw, "%-32s %s\n", fmt.Sprintf("%q", t), strings.Join(cells, ", "))
	}
	return bw.Flush()
}

// AtomF1 scores predicted atoms against gold atoms (see Scores). The
// expressions give each atom's polarity; a nil expression means all
// positive.
func AtomF1(pred []string, predExpr *boolexpr.Expr, gold []string, goldExpr *boolexpr.Expr) (exact, token float64) {
	if len(pred) == 0 || len(gold) == 0 {
		return 0, 0
	}
	type pair struct {
		i, j  int
		score float64
	}
	var exactPairs, tokenPairs []pair
	for i, p := range pred {
		for j, g := range gold {
			if negated(predExpr, i) != negated(goldExpr, j) {
				continue
			}
			if normalizeAtom(p) == normalizeAtom(g) {
				exactPairs = append(exactPairs, pair{i, j, 1})
			}
			if s := tokenF1(contentTokens(p), contentTokens(g)); s > 0 {
				tokenPairs = append(tokenPairs, pair{i, j, s})
			}
		}
	}
	match := func(pairs []pair) float64 {
		sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].score > pairs[b].score })
		usedP, usedG := map[int]bool{}, map[int]bool{}
		total := 0.0
		for _, p := range pairs {
			if usedP[p.i] || usedG[p.j] {
				continue
			}
			usedP[p.i], usedG[p.j] = true, true
			total += p.score
		}
		prec, rec := total/float64(len(pred)), total/float64(len(gold))
		if prec+rec == 0 {
			return 0
		}
		return 2 * prec * rec / (prec + rec)
	}
	return match(exactPairs), match(tokenPairs)
}

func negated(e *boolexpr.Expr, i int) bool { return e != nil && e.Negated(i) }

// normalizeAtom is the exact-match key: lower case, runs of non-alphanumeric
// characters collapsed to one space.
func normalizeAtom(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), notAlnum), " ")
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// isStopWord reports whether w carries no category meaning: connective and
// preposition choice varies freely between a paraphrase and its category
// name.
func isStopWord(w string) bool {
	switch w {
	case "the", "a", "an", "of", "from", "in", "on", "at", "by", "and", "or", "that", "are", "is",
		"also", "to", "for", "with", "about", "which", "found", "s":
		return true
	}
	return false
}

func contentTokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), notAlnum) {
		if isStopWord(w) {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

// tokenF1 is the bag-of-tokens F1 of two token lists.
func tokenF1(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, t := range b {
		count[t]++
	}
	common := 0
	for _, t := range a {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(a)), float64(common)/float64(len(b))
	return 2 * p * r / (p + r)
}
