package boolexpr

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Span is a half-open byte range [Start, End) in a query text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// AtomSpan is one <mark>-ed atom of a QUEST original_query: its text and
// where it sits in the unmarked query text.
type AtomSpan struct {
	Text string `json:"text"`
	Span
}

const (
	markOpen  = "<mark>"
	markClose = "</mark>"
)

// ParseMarked extracts the <mark>…</mark> atoms of a QUEST original_query.
// It returns the atoms in order of appearance, with byte spans into text,
// the query with the mark tags removed. Nested, unclosed, stray-closing and
// empty marks are errors.
func ParseMarked(originalQuery string) (atoms []AtomSpan, text string, err error) {
	var b strings.Builder
	rest := originalQuery
	for len(rest) > 0 {
		open := strings.Index(rest, markOpen)
		closeAt := strings.Index(rest, markClose)
		if closeAt >= 0 && (open < 0 || closeAt < open) {
			return nil, "", fmt.Errorf("boolexpr: %s without %s at byte %d", markClose, markOpen, len(originalQuery)-len(rest)+closeAt)
		}
		if open < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:open])
		body := rest[open+len(markOpen):]
		end := strings.Index(body, markClose)
		if end < 0 {
			return nil, "", fmt.Errorf("boolexpr: unclosed %s at byte %d", markOpen, len(originalQuery)-len(rest)+open)
		}
		inner := body[:end]
		if strings.Contains(inner, markOpen) {
			return nil, "", fmt.Errorf("boolexpr: nested %s at byte %d", markOpen, len(originalQuery)-len(rest)+open)
		}
		if strings.TrimSpace(inner) == "" {
			return nil, "", fmt.Errorf("boolexpr: empty %s at byte %d", markOpen, len(originalQuery)-len(rest)+open)
		}
		start := b.Len()
		b.WriteString(inner)
		atoms = append(atoms, AtomSpan{Text: inner, Span: Span{Start: start, End: b.Len()}})
		rest = body[end+len(markClose):]
	}
	return atoms, b.String(), nil
}

// Query is a Boolean query: its text, QUEST template (empty when it fits
// none), atom texts, the byte spans of the atoms in Text (nil when the atoms
// are not literal substrings of Text, e.g. after a paraphrase), and the
// expression over the atoms.
type Query struct {
	Text     string   `json:"text"`
	Template string   `json:"template,omitempty"`
	Atoms    []string `json:"atoms"`
	Spans    []Span   `json:"spans,omitempty"`
	Expr     *Expr    `json:"expression"`
}

// QueryFromQuest builds a Query from a QUEST original_query (with <mark>
// atoms) and its template. Text is the unmarked original query, so the spans
// point into it. The number of marks must equal the template's atom count.
func QueryFromQuest(originalQuery, template string) (*Query, error) {
	spans, text, err := ParseMarked(originalQuery)
	if err != nil {
		return nil, err
	}
	expr, err := FromTemplate(template, len(spans))
	if err != nil {
		return nil, fmt.Errorf("boolexpr: %q: %w", originalQuery, err)
	}
	q := &Query{Text: text, Template: template, Expr: expr}
	for _, s := range spans {
		q.Atoms = append(q.Atoms, s.Text)
		q.Spans = append(q.Spans, s.Span)
	}
	return q, nil
}

// Validate checks the expression against the atoms and the spans against
// the text.
func (q *Query) Validate() error {
	if q.Expr == nil {
		return fmt.Errorf("boolexpr: query %q has no expression", q.Text)
	}
	if err := q.Expr.Validate(len(q.Atoms)); err != nil {
		return err
	}
	if q.Spans != nil && len(q.Spans) != len(q.Atoms) {
		return fmt.Errorf("boolexpr: query has %d spans for %d atoms", len(q.Spans), len(q.Atoms))
	}
	for i, s := range q.Spans {
		if s.Start < 0 || s.End < s.Start || s.End > len(q.Text) {
			return fmt.Errorf("boolexpr: span %d [%d,%d) outside the %d-byte text", i, s.Start, s.End, len(q.Text))
		}
	}
	if q.Template != "" {
		if t, ok := TemplateOf(q.Expr); !ok || t != q.Template {
			return fmt.Errorf("boolexpr: expression %s does not match template %q", q.Expr, q.Template)
		}
	}
	return nil
}

// Marked renders the query text with <mark> around each atom span, the
// inverse of ParseMarked. Without spans it returns the plain text.
func (q *Query) Marked() string {
	if len(q.Spans) == 0 {
		return q.Text
	}
	var b strings.Builder
	pos := 0
	for _, s := range q.Spans {
		if s.Start < pos || s.End > len(q.Text) {
			return q.Text
		}
		b.WriteString(q.Text[pos:s.Start])
		b.WriteString(markOpen)
		b.WriteString(q.Text[s.Start:s.End])
		b.WriteString(markClose)
		pos = s.End
	}
	b.WriteString(q.Text[pos:])
	return b.String()
}

// ParseJSON decodes an expression in its JSON form and validates it against
// nAtoms (negative: no range check).
func ParseJSON(data []byte, nAtoms int) (*Expr, error) {
	var e Expr
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("boolexpr: decode expression: %w", err)
	}
	if err := e.Validate(nAtoms); err != nil {
		return nil, err
	}
	return &e, nil
}
