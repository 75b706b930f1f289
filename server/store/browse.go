package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Agreement filters of the item browser (BrowseFilter.Agreement), over
// the stored consensus's binarised votes.
const (
	AgreementAgree       = "agree"       // two or more votes, all relevant or all not
	AgreementDisagree    = "disagree"    // relevant and not-relevant votes both
	AgreementSingle      = "single"      // exactly one vote
	AgreementAdjudicated = "adjudicated" // a researcher's decision (adjudication or correction) stands
	AgreementUnjudged    = "unjudged"    // no consensus: no current relevance vote
)

// BrowseFilter selects the items of a project the item browser lists. The
// zero value of each field means "any". Annotator, Label, From and To
// apply together to one current judgment: an item is listed when one of
// its current judgments is by Annotator, has grade Label and was made in
// [From, To).
type BrowseFilter struct {
	Kind        string // item kind ("" any)
	Text        string // a substring of the query text or id, or the document's title or id (case-insensitive)
	QueryID     int64
	AnnotatorID int64
	Label       int // 0–3; -1 any
	Agreement   string
	Gold        *bool
	From, To    *time.Time
	Limit       int
	Offset      int
}

// BrowseRow is one item of the browser: what it is, its current votes
// (annotators and grades in username order) and its consensus (nil
// fields: none).
type BrowseRow struct {
	ItemID            int64      `db:"item_id"`
	Kind              string     `db:"kind"`
	QueryID           int64      `db:"query_id"`
	QueryExtID        string     `db:"query_ext_id"`
	QueryText         string     `db:"query_text"`
	DocExtID          string     `db:"doc_ext_id"`
	DocTitle          string     `db:"doc_title"`
	IsGold            bool       `db:"is_gold"`
	Annotators        []string   `db:"annotators"`
	Grades            []int16    `db:"grades"`
	LastJudged        *time.Time `db:"last_judged"`
	Relevance         *int16     `db:"relevance"`
	Status            *string    `db:"status"`
	Votes             *int       `db:"votes"`
	RelevantVotes     *int       `db:"relevant_votes"`
	Contradictions    *int       `db:"contradictions"`
	NeedsAdjudication *bool      `db:"needs_adjudication"`
}

// likePattern is s as a case-insensitive substring pattern for ILIKE …
// ESCAPE '\' (its own %, _ and \ taken literally).
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// browseWhere is the WHERE clause of a filter over items i, queries q,
// documents d (LEFT JOIN) and consensus c (LEFT JOIN), and its arguments
// ($1 is the project).
func browseWhere(projectID int64, f BrowseFilter) (string, []any) {
	args := []any{projectID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	conds := []string{"i.project_id = $1"}
	if f.Kind != "" {
		conds = append(conds, "i.kind = "+arg(f.Kind))
	}
	if t := strings.TrimSpace(f.Text); t != "" {
		p := arg(likePattern(t))
		conds = append(conds, fmt.Sprintf(`(q.text ILIKE %[1]s ESCAPE '\' OR q.ext_id ILIKE %[1]s ESCAPE '\'
			OR d.title ILIKE %[1]s ESCAPE '\' OR d.ext_id ILIKE %[1]s ESCAPE '\')`, p))
	}
	if f.QueryID != 0 {
		conds = append(conds, "i.query_id = "+arg(f.QueryID))
	}
	if f.AnnotatorID != 0 || f.Label >= 0 || f.From != nil || f.To != nil {
		sub := []string{"cj.project_id = $1", "cj.item_id = i.id"}
		if f.AnnotatorID != 0 {
			sub = append(sub, "cj.user_id = "+arg(f.AnnotatorID))
		}
		if f.Label >= 0 {
			sub = append(sub, "cj.relevance = "+arg(f.Label))
		}
		if f.From != nil {
			sub = append(sub, "cj.created_at >= "+arg(*f.From))
		}
		if f.To != nil {
			sub = append(sub, "cj.created_at < "+arg(*f.To))
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM current_judgments cj WHERE "+strings.Join(sub, " AND ")+")")
	}
	switch f.Agreement {
	case AgreementAgree:
		conds = append(conds, "c.votes >= 2 AND (c.relevant_votes = 0 OR c.relevant_votes = c.votes)")
	case AgreementDisagree:
		conds = append(conds, "c.relevant_votes > 0 AND c.relevant_votes < c.votes")
	case AgreementSingle:
		conds = append(conds, "c.votes = 1")
	case AgreementAdjudicated:
		conds = append(conds, "c.adjudication_id IS NOT NULL")
	case AgreementUnjudged:
		conds = append(conds, "c.item_id IS NULL")
	}
	if f.Gold != nil {
		conds = append(conds, "i.is_gold = "+arg(*f.Gold))
	}
	return strings.Join(conds, " AND "), args
}

const browseFrom = `items i
	JOIN queries q ON q.id = i.query_id
	LEFT JOIN documents d ON d.id = i.document_id
	LEFT JOIN consensus c ON c.item_id = i.id`

// BrowseItems returns one page of a project's items that pass the filter,
// by item id, and how many pass it in all. The votes are read for the
// page's items only.
func (s *Store) BrowseItems(ctx context.Context, projectID int64, f BrowseFilter) ([]BrowseRow, int, error) {
	where, args := browseWhere(projectID, f)
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+browseFrom+` WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: browse items: %w", err)
	}
	n := len(args)
	args = append(args, f.Limit, f.Offset)
	rows, _ := s.pool.Query(ctx, `SELECT page.*, v.annotators, v.grades, v.last_judged FROM (
			SELECT i.id AS item_id, i.kind, i.query_id, q.ext_id AS query_ext_id, q.text AS query_text,
				COALESCE(d.ext_id, '') AS doc_ext_id, COALESCE(d.title, '') AS doc_title, i.is_gold,
				c.relevance, c.status, c.votes, c.relevant_votes, c.contradictions, c.needs_adjudication
			FROM `+browseFrom+` WHERE `+where+`
			ORDER BY i.id LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2)+`
		) page
		LEFT JOIN LATERAL (
			SELECT COALESCE(array_agg(u.username ORDER BY u.username), '{}') AS annotators,
				COALESCE(array_agg(cj.relevance ORDER BY u.username), '{}') AS grades, max(cj.created_at) AS last_judged
			FROM current_judgments cj JOIN users u ON u.id = cj.user_id
			WHERE cj.project_id = $1 AND cj.item_id = page.item_id AND cj.relevance IS NOT NULL
		) v ON true
		ORDER BY page.item_id`, args...)
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[BrowseRow])
	if err != nil {
		return nil, 0, fmt.Errorf("store: browse items: %w", err)
	}
	return rs, total, nil
}

// BrowseQueryRow is one query of the searchable query list with its
// relevance items, how many have a consensus and how many disagree.
type BrowseQueryRow struct {
	ID          int64  `db:"id"`
	ExtID       string `db:"ext_id"`
	Text        string `db:"text"`
	Items       int    `db:"items"`
	Judged      int    `db:"judged"`
	Disagreeing int    `db:"disagreeing"`
}

// BrowseQueries returns one page of a project's queries whose text or id
// contains text (case-insensitive; "" all), in import order, and how many
// match in all.
func (s *Store) BrowseQueries(ctx context.Context, projectID int64, text string, limit, offset int) ([]BrowseQueryRow, int, error) {
	const where = `WHERE q.project_id = $1 AND ($2 = '' OR q.text ILIKE $3 ESCAPE '\' OR q.ext_id ILIKE $3 ESCAPE '\')`
	t := strings.TrimSpace(text)
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM queries q `+where, projectID, t, likePattern(t)).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: browse queries: %w", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT page.id, page.ext_id, page.text,
			(SELECT count(*) FROM items i WHERE i.project_id = $1 AND i.kind = 'relevance' AND i.query_id = page.id)::int AS items,
			(SELECT count(*) FROM consensus c WHERE c.project_id = $1 AND c.query_id = page.id)::int AS judged,
			(SELECT count(*) FROM consensus c WHERE c.project_id = $1 AND c.query_id = page.id
				AND c.relevant_votes > 0 AND c.relevant_votes < c.votes)::int AS disagreeing
		FROM (SELECT q.id, q.ext_id, q.text, q.seq FROM queries q `+where+` ORDER BY q.seq, q.id LIMIT $4 OFFSET $5) page
		ORDER BY page.seq, page.id`, projectID, t, likePattern(t), limit, offset)
	qs, err := pgx.CollectRows(rows, pgx.RowToStructByName[BrowseQueryRow])
	if err != nil {
		return nil, 0, fmt.Errorf("store: browse queries: %w", err)
	}
	return qs, total, nil
}
