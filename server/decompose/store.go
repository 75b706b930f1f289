package decompose

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/textseg"
)

// StoreOptions select the queries StoreProjectExpressions decomposes.
type StoreOptions struct {
	Split       string // only this split ("" = all queries)
	OnlyMissing bool   // leave queries that already have an expression alone
	DryRun      bool   // decompose and summarise, store nothing
	UserID      int64  // the audit log's actor; 0 = none (CLI, importer)
}

// TemplateCount is how many queries got one template.
type TemplateCount struct {
	Template string `json:"template"` // "" = fits no QUEST template
	Queries  int    `json:"queries"`
}

// Failure is a query the decomposer gave no usable expression.
type Failure struct {
	ExtID  string `json:"ext_id"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Summary says what StoreProjectExpressions did (or, with DryRun, would
// do).
type Summary struct {
	Queries int  `json:"queries"` // queries considered (the split's)
	Stored  int  `json:"stored"`  // expressions written (DryRun: that would be)
	Skipped int  `json:"skipped"` // OnlyMissing: queries that already had one
	DryRun  bool `json:"dry_run"`
	// LowConfidence is how many of the stored expressions the decomposer
	// was less sure of than ConfidenceThreshold: the ones to check first.
	LowConfidence       int             `json:"low_confidence"`
	ConfidenceThreshold float64         `json:"confidence_threshold"`
	ByTemplate          []TemplateCount `json:"by_template"` // of the stored ones, most frequent first
	Failed              []Failure       `json:"failed"`
}

// LowConfidence is the confidence below which a decomposition counts as
// doubtful: on the shipped model's held-out QUEST queries, about the
// least sure quarter, whose templates are markedly less often right.
const LowConfidence = 0.7

// HasExpression reports whether a stored query has a usable expression
// (what the Boolean retrieval methods need).
func HasExpression(q store.Query) bool {
	return len(q.Expression) > 0 && string(q.Expression) != "null" && len(q.Atoms) > 0
}

// StoreProjectExpressions runs the rule-based decomposer on a project's
// queries and stores each expression, its atoms (with their spans in the
// text) and template in one transaction, audited like an editor's
// correction (action query.expression, source "decomposer"). Importers of
// formats without structure call it after an import.
func StoreProjectExpressions(ctx context.Context, st *store.Store, projectID int64, opts StoreOptions) (Summary, error) {
	qs, err := st.ListQueries(ctx, projectID, opts.Split)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Queries: len(qs), DryRun: opts.DryRun, ByTemplate: []TemplateCount{}, Failed: []Failure{}, ConfidenceThreshold: LowConfidence}
	counts := map[string]int{}
	var ups []store.ExpressionUpdate
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if opts.OnlyMissing && HasExpression(q) {
			sum.Skipped++
			continue
		}
		up, conf, reason := expressionFor(q)
		if reason != "" {
			// The text is clipped: a failure may be a query over the caps.
			sum.Failed = append(sum.Failed, Failure{ExtID: q.ExtID, Text: apperr.Clip(q.Text, 300), Reason: reason})
			continue
		}
		if conf < LowConfidence {
			sum.LowConfidence++
		}
		ups = append(ups, up)
		counts[up.Template]++
	}
	if !opts.DryRun && len(ups) > 0 {
		if err := st.SetQueryExpressions(ctx, opts.UserID, "decomposer", ups); err != nil {
			return Summary{}, fmt.Errorf("decompose: store expressions: %w", err)
		}
	}
	sum.Stored = len(ups)
	for t, n := range counts {
		sum.ByTemplate = append(sum.ByTemplate, TemplateCount{Template: t, Queries: n})
	}
	sort.Slice(sum.ByTemplate, func(i, j int) bool {
		a, b := sum.ByTemplate[i], sum.ByTemplate[j]
		if a.Queries != b.Queries {
			return a.Queries > b.Queries
		}
		return a.Template < b.Template
	})
	return sum, nil
}

// expressionFor decomposes one query, or says why its result is unusable.
func expressionFor(q store.Query) (store.ExpressionUpdate, float64, string) {
	up, r, reason := expressionOf(q)
	return up, r.Confidence, reason
}

// expressionOf decomposes one query into the update that stores it.
func expressionOf(q store.Query) (store.ExpressionUpdate, Result, string) {
	if strings.TrimSpace(q.Text) == "" {
		return store.ExpressionUpdate{}, Result{}, "empty query text"
	}
	if reason := CheckQuery(q.Text); reason != "" {
		return store.ExpressionUpdate{}, Result{}, reason
	}
	r := Decompose(q.Text)
	up, reason := updateFor(q, r)
	return up, r, reason
}

// StoredConfidence returns the decomposer's confidence in a query's stored
// expression when that expression is the decomposer's own reading of the
// text (same atoms, same expression); ok is false for expressions a
// researcher corrected or an import brought.
func StoredConfidence(q store.Query) (conf float64, ok bool) {
	if !HasExpression(q) {
		return 0, false
	}
	up, r, reason := expressionOf(q)
	if reason != "" || len(up.Atoms) != len(q.Atoms) {
		return 0, false
	}
	for i, a := range up.Atoms {
		if a.Text != q.Atoms[i].Text {
			return 0, false
		}
	}
	stored, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms))
	if err != nil || !boolexpr.Equal(stored, r.Expression) {
		return 0, false
	}
	return r.Confidence, true
}

// updateFor turns a decomposition into the update that stores it, or says
// why it is unusable.
func updateFor(q store.Query, r Result) (store.ExpressionUpdate, string) {
	if r.Expression == nil || len(r.Atoms) == 0 {
		return store.ExpressionUpdate{}, "no expression"
	}
	if len(r.Atoms) > MaxAtoms {
		return store.ExpressionUpdate{}, fmt.Sprintf("%d atoms, more than the %d a query may have", len(r.Atoms), MaxAtoms)
	}
	atoms := make([]store.Atom, len(r.Atoms))
	spans := newSpanFinder(q.Text)
	for i, a := range r.Atoms {
		if strings.TrimSpace(a) == "" {
			return store.ExpressionUpdate{}, fmt.Sprintf("atom %s is empty", boolexpr.AtomName(i))
		}
		atoms[i] = spans.find(a)
	}
	raw, err := json.Marshal(r.Expression)
	if err != nil {
		return store.ExpressionUpdate{}, err.Error()
	}
	// Check what the retrieval methods will read back.
	if _, err := boolexpr.ParseJSON(raw, len(atoms)); err != nil {
		return store.ExpressionUpdate{}, err.Error()
	}
	return store.ExpressionUpdate{QueryID: q.ID, Template: r.Template, Atoms: atoms, Expression: raw}, ""
}

// spanFinder locates a query's atoms in its text, case-insensitively,
// lower-casing the text once (issue 29: once per atom made a long query
// quadratic). Atoms mostly follow each other, so each is looked for from
// the end of the one before, then, if not found there, from the start.
type spanFinder struct {
	text, lower string
	from        int
}

func newSpanFinder(text string) *spanFinder {
	return &spanFinder{text: text, lower: strings.ToLower(text)}
}

// find returns atom's span; an atom the decomposer rewrote (a shared head
// noun) gets an empty span at 0.
func (f *spanFinder) find(atom string) store.Atom {
	la := strings.ToLower(atom)
	if len(f.lower) != len(f.text) || len(la) != len(atom) {
		return store.Atom{Text: atom}
	}
	i := strings.Index(f.lower[f.from:], la)
	if i >= 0 {
		i += f.from
	} else {
		i = strings.Index(f.lower, la)
	}
	if i < 0 {
		return store.Atom{Text: atom}
	}
	f.from = i + len(atom)
	return store.Atom{Text: atom, Start: i, End: i + len(atom)}
}

// Limits of a query the decomposer reads (issue 29): a longer query, or a
// decomposition into more atoms, is refused rather than worked on. Real
// queries are a few dozen words with two to five atoms.
const (
	MaxQueryBytes = 10000
	MaxQueryWords = 1000
	MaxAtoms      = 26 // as api.MaxAtoms, the editor's bound
)

// CheckQuery says why text is too long to decompose, or "" when it is not.
func CheckQuery(text string) string {
	if len(text) > MaxQueryBytes {
		return fmt.Sprintf("query text of %d bytes: over the %d bytes a query may have", len(text), MaxQueryBytes)
	}
	if n := textseg.CountWords(text); n > MaxQueryWords {
		return fmt.Sprintf("query text of %d words: over the %d words a query may have", n, MaxQueryWords)
	}
	return ""
}
