package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/apperr"
	"boolpool/server/vocab"
)

// Review verdicts (judgment_reviews.verdict, migration 0096).
const (
	VerdictAccept  = vocab.ReviewAccept
	VerdictCorrect = vocab.ReviewCorrect
)

// ReviewRow is one stored review with the names and the judgment it is
// about: Original is the annotator's grade, Relevance the corrected one
// (corrections only), Current whether the judgment is still the
// annotator's latest judgment of the item.
type ReviewRow struct {
	ID             int64     `db:"id"`
	JudgmentID     int64     `db:"judgment_id"`
	ItemID         int64     `db:"item_id"`
	ProjectID      int64     `db:"project_id"`
	AnnotatorID    int64     `db:"annotator_id"`
	Annotator      string    `db:"annotator"`
	ReviewerID     int64     `db:"reviewer_id"`
	Reviewer       string    `db:"reviewer"`
	Verdict        string    `db:"verdict"`
	Original       int16     `db:"original"`
	Relevance      *int16    `db:"relevance"`
	Note           string    `db:"note"`
	AdjudicationID *int64    `db:"adjudication_id"`
	CreatedAt      time.Time `db:"created_at"`
	Current        bool      `db:"current"`
}

const reviewFrom = `judgment_reviews r
	JOIN judgments j ON j.id = r.judgment_id
	JOIN users ua ON ua.id = r.annotator_id
	JOIN users ur ON ur.id = r.reviewer_id`

const reviewCols = `r.id, r.judgment_id, j.item_id, r.project_id, r.annotator_id, ua.username AS annotator,
	r.reviewer_id, ur.username AS reviewer, r.verdict, COALESCE(j.relevance, 0)::smallint AS original, r.relevance,
	r.note, r.adjudication_id, r.created_at,
	NOT EXISTS (SELECT 1 FROM judgments l WHERE l.item_id = j.item_id AND l.user_id = j.user_id AND l.id > j.id) AS current`

// JudgmentSummary is a relevance judgment with what it is about, as the
// review queue and the annotator's feedback list it.
type JudgmentSummary struct {
	JudgmentID  int64     `db:"j_judgment_id"`
	ItemID      int64     `db:"j_item_id"`
	AnnotatorID int64     `db:"j_annotator_id"`
	Annotator   string    `db:"j_annotator"`
	QueryExtID  string    `db:"query_ext_id"`
	QueryText   string    `db:"query_text"`
	DocExtID    string    `db:"doc_ext_id"`
	DocTitle    string    `db:"doc_title"`
	Grade       int16     `db:"grade"`
	Evidence    string    `db:"evidence"`
	Comment     string    `db:"comment"`
	JudgedAt    time.Time `db:"judged_at"`
}

// summaryCols reads a JudgmentSummary from jj (a judgments row or the
// current_judgments view), uj (its user), q and d (LEFT JOIN documents).
const summaryCols = `jj.id AS j_judgment_id, jj.item_id AS j_item_id, jj.user_id AS j_annotator_id, uj.username AS j_annotator,
	q.ext_id AS query_ext_id, q.text AS query_text, COALESCE(d.ext_id, '') AS doc_ext_id, COALESCE(d.title, '') AS doc_title,
	COALESCE(jj.relevance, 0)::smallint AS grade, COALESCE(jj.evidence, '') AS evidence, jj.comment, jj.created_at AS judged_at`

// NewReview is the input of AddReview. AdjudicationNote is the note of
// the adjudication a correction records.
type NewReview struct {
	JudgmentID       int64
	ReviewerID       int64
	Verdict          string
	Relevance        *int16
	Note             string
	AdjudicationNote string
}

// JudgmentProject returns the project and item of a judgment (ErrNotFound
// if there is none), for the access check before a review.
func (s *Store) JudgmentProject(ctx context.Context, judgmentID int64) (projectID, itemID int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT i.project_id, i.id FROM judgments j JOIN items i ON i.id = j.item_id WHERE j.id = $1`,
		judgmentID).Scan(&projectID, &itemID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, fmt.Errorf("store: judgment %d: %w", judgmentID, ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("store: judgment %d: %w", judgmentID, err)
	}
	return projectID, itemID, nil
}

// AddReview stores a review of a judgment in one transaction, audited as
// review.accept or review.correct. A correction also records an
// adjudication of the item with the corrected grade (audited as
// adjudication.decide, like any researcher decision); the caller then
// refreshes the item's consensus. The judgment itself is not changed.
//
// Refused (4xx): a judgment that is not a relevance judgment with a grade,
// one its annotator has replaced since (review the newer one), the
// reviewer's own judgment, and a "correction" to the grade it already has.
func (s *Store) AddReview(ctx context.Context, n NewReview) (ReviewRow, error) {
	var out ReviewRow
	if n.Verdict != VerdictAccept && n.Verdict != VerdictCorrect {
		return out, apperr.Invalidf("verdict", "must be %s or %s", VerdictAccept, VerdictCorrect)
	}
	if (n.Verdict == VerdictCorrect) != (n.Relevance != nil) {
		return out, apperr.Invalidf("relevance", "a correction needs the corrected grade, an acceptance none")
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var itemID, userID, projectID int64
		var kind, skip string
		var grade *int16
		var later *int64
		err := tx.QueryRow(ctx, `SELECT j.item_id, j.user_id, i.project_id, i.kind, j.relevance, j.skip_reason,
				(SELECT max(l.id) FROM judgments l WHERE l.item_id = j.item_id AND l.user_id = j.user_id AND l.id > j.id)
			FROM judgments j JOIN items i ON i.id = j.item_id WHERE j.id = $1 FOR SHARE OF j`, n.JudgmentID).
			Scan(&itemID, &userID, &projectID, &kind, &grade, &skip, &later)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: judgment %d: %w", n.JudgmentID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: judgment %d: %w", n.JudgmentID, err)
		}
		switch {
		case kind != "relevance" || grade == nil || skip != "":
			return apperr.Refusedf(ErrConflict, "judgment_id", "judgment %d is not a relevance grade (a %s item%s): only relevance judgments are reviewed",
				n.JudgmentID, kind, map[bool]string{true: ", skipped", false: ""}[skip != ""])
		case later != nil:
			return apperr.Refusedf(ErrConflict, "judgment_id", "judgment %d was replaced by the annotator's judgment %d of the same item: review that one",
				n.JudgmentID, *later)
		case userID == n.ReviewerID:
			return apperr.Refusedf(apperr.ErrForbidden, "judgment_id", "judgment %d is your own: another researcher reviews it", n.JudgmentID)
		case n.Relevance != nil && *n.Relevance == *grade:
			return apperr.Invalidf("relevance", "%d is the annotator's own grade: accept the judgment instead", *grade)
		}
		var adjID *int64
		if n.Verdict == VerdictCorrect {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO adjudications (item_id, user_id, relevance, note) VALUES ($1, $2, $3, $4) RETURNING id`,
				itemID, n.ReviewerID, *n.Relevance, n.AdjudicationNote).Scan(&id); err != nil {
				return fmt.Errorf("store: adjudication of review: %w", err)
			}
			adjID = &id
			if err := audit(ctx, tx, n.ReviewerID, projectID, "adjudication.decide", "item", fmt.Sprint(itemID),
				map[string]any{"adjudication_id": id, "relevance": *n.Relevance, "note": n.AdjudicationNote, "judgment_id": n.JudgmentID}); err != nil {
				return err
			}
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO judgment_reviews (judgment_id, project_id, annotator_id, reviewer_id, verdict, relevance, note, adjudication_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			n.JudgmentID, projectID, userID, n.ReviewerID, n.Verdict, n.Relevance, n.Note, adjID).Scan(&id); err != nil {
			return fmt.Errorf("store: add review: %w", err)
		}
		if err := audit(ctx, tx, n.ReviewerID, projectID, "review."+n.Verdict, "judgment", fmt.Sprint(n.JudgmentID),
			map[string]any{"review_id": id, "annotator_id": userID, "original": *grade, "relevance": n.Relevance, "note": n.Note}); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `SELECT `+reviewCols+` FROM `+reviewFrom+` WHERE r.id = $1`, id)
		out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ReviewRow])
		if err != nil {
			return fmt.Errorf("store: read review %d: %w", id, err)
		}
		return nil
	})
	return out, err
}

// ReviewsOfItem returns every review of an item's judgments, oldest first.
func (s *Store) ReviewsOfItem(ctx context.Context, itemID int64) ([]ReviewRow, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+reviewCols+` FROM `+reviewFrom+` WHERE j.item_id = $1 ORDER BY r.id`, itemID)
	return collectAll[ReviewRow](rows, fmt.Sprintf("reviews of item %d", itemID))
}

// AnnotatorReviewCounts is one annotator's line of the review overview:
// their current relevance judgments in a project and the latest verdicts.
type AnnotatorReviewCounts struct {
	AnnotatorID int64  `db:"annotator_id"`
	Annotator   string `db:"annotator"`
	Judged      int    `db:"judged"`
	Unreviewed  int    `db:"unreviewed"`
	Accepted    int    `db:"accepted"`
	Corrected   int    `db:"corrected"`
}

// ReviewCounts lists, for every annotator with a current relevance
// judgment in the project, how many there are, how many have no review,
// and how many were last accepted or corrected; by username.
func (s *Store) ReviewCounts(ctx context.Context, projectID int64) ([]AnnotatorReviewCounts, error) {
	rows, _ := s.pool.Query(ctx, `WITH cur AS (
			SELECT cj.id, cj.user_id FROM current_judgments cj
			WHERE cj.project_id = $1 AND cj.item_kind = 'relevance' AND cj.relevance IS NOT NULL
		), latest AS (
			SELECT DISTINCT ON (r.judgment_id) r.judgment_id, r.verdict FROM judgment_reviews r
			WHERE r.project_id = $1 ORDER BY r.judgment_id, r.id DESC
		)
		SELECT cur.user_id AS annotator_id, u.username AS annotator, count(*)::int AS judged,
			(count(*) FILTER (WHERE latest.verdict IS NULL))::int AS unreviewed,
			(count(*) FILTER (WHERE latest.verdict = 'accept'))::int AS accepted,
			(count(*) FILTER (WHERE latest.verdict = 'correct'))::int AS corrected
		FROM cur JOIN users u ON u.id = cur.user_id LEFT JOIN latest ON latest.judgment_id = cur.id
		GROUP BY cur.user_id, u.username ORDER BY u.username`, projectID)
	return collectAll[AnnotatorReviewCounts](rows, fmt.Sprintf("review counts of project %d", projectID))
}

// ReviewQueue returns one page of an annotator's current relevance
// judgments in a project that have no review yet, oldest first, and how
// many there are in all.
func (s *Store) ReviewQueue(ctx context.Context, projectID, annotatorID int64, limit, offset int) ([]JudgmentSummary, int, error) {
	const where = `FROM current_judgments jj
		JOIN users uj ON uj.id = jj.user_id
		JOIN queries q ON q.id = jj.query_id
		LEFT JOIN documents d ON d.id = jj.document_id
		WHERE jj.project_id = $1 AND jj.item_kind = 'relevance' AND jj.relevance IS NOT NULL AND jj.user_id = $2
			AND NOT EXISTS (SELECT 1 FROM judgment_reviews r WHERE r.judgment_id = jj.id)`
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) `+where, projectID, annotatorID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: review queue: %w", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+summaryCols+` `+where+` ORDER BY jj.id LIMIT $3 OFFSET $4`,
		projectID, annotatorID, limit, offset)
	js, err := pgx.CollectRows(rows, pgx.RowToStructByName[JudgmentSummary])
	if err != nil {
		return nil, 0, fmt.Errorf("store: review queue: %w", err)
	}
	return js, total, nil
}

// FeedbackRow is one review of an annotator's judgment with the judgment.
type FeedbackRow struct {
	JudgmentSummary
	ReviewRow
}

// FeedbackCounts counts the reviews an annotator received in a project.
type FeedbackCounts struct {
	Total       int
	Corrections int
}

// Feedback returns one page of the reviews of an annotator's judgments in
// a project, newest first, and the counts over all of them. Only the
// annotator's own: the caller passes the signed-in user.
func (s *Store) Feedback(ctx context.Context, annotatorID, projectID int64, limit, offset int) ([]FeedbackRow, FeedbackCounts, error) {
	var c FeedbackCounts
	if err := s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE verdict = 'correct') FROM judgment_reviews
		WHERE annotator_id = $1 AND project_id = $2`, annotatorID, projectID).Scan(&c.Total, &c.Corrections); err != nil {
		return nil, c, fmt.Errorf("store: feedback counts: %w", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+summaryCols+`, `+reviewCols+` FROM `+reviewFrom+`
		JOIN judgments jj ON jj.id = r.judgment_id
		JOIN users uj ON uj.id = jj.user_id
		JOIN items i ON i.id = jj.item_id
		JOIN queries q ON q.id = i.query_id
		LEFT JOIN documents d ON d.id = i.document_id
		WHERE r.annotator_id = $1 AND r.project_id = $2
		ORDER BY r.id DESC LIMIT $3 OFFSET $4`, annotatorID, projectID, limit, offset)
	fs, err := pgx.CollectRows(rows, pgx.RowToStructByName[FeedbackRow])
	if err != nil {
		return nil, c, fmt.Errorf("store: feedback: %w", err)
	}
	return fs, c, nil
}
