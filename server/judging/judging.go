// Package judging is the rater workflow: leasing items to raters (r raters
// per item, never the same item twice to one rater, gold items mixed in,
// leases that expire and return), building the task views, and storing
// judgments idempotently with the server-side constraint-contradiction flag,
// supersession instead of overwrite, follow-up validation tasks for new
// paraphrases and the majority vote over three validations.
package judging

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"boolpool/server/apperr"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Store is what judging needs from the database.
type Store interface {
	ProjectForUser(ctx context.Context, name string, userID int64) (store.Project, bool, error)
	ProjectByID(ctx context.Context, id int64) (store.Project, error)
	LeaseTasks(ctx context.Context, p store.LeaseParams) ([]store.Assignment, []store.TaskData, store.RaterProgress, error)
	OpenItems(ctx context.Context, projectID int64, kind string, raters int) (int, error)
	RaterOpenItems(ctx context.Context, p store.LeaseParams) (int, error)
	HeldTotal(ctx context.Context, projectID, userID int64, kind string, idle time.Duration) (int, bool, error)
	HoldTotal(ctx context.Context, projectID, userID int64, kind string, total int) error
	AssignedTask(ctx context.Context, itemID, userID int64) (store.TaskData, *store.Assignment, error)
	SaveJudgment(ctx context.Context, n store.NewJudgment) (store.Judgment, bool, error)
	CurrentJudgments(ctx context.Context, itemID int64) ([]store.Judgment, error)
	SaveValidationVerdict(ctx context.Context, v store.ValidationVerdict) error
	CountItems(ctx context.Context, projectID int64) (store.ItemCounts, error)
	GoldRecordOf(ctx context.Context, projectID, userID int64) (store.GoldRecord, error)
	MemberProjects(ctx context.Context, userID int64) ([]store.MemberProject, error)
	ProgressOf(ctx context.Context, userID, projectID int64, kind string) (store.RaterProgress, error)
	CrowdWorkOf(ctx context.Context, projectID, userID int64) (store.CrowdWork, error)
	EndCrowdWork(ctx context.Context, projectID, userID int64, release bool) error
}

// Observer is told about every newly stored relevance judgment, after its
// transaction committed (consensus.Service implements it: it refreshes the
// item's consensus, and the live dashboards follow the consensus).
type Observer interface {
	JudgmentSaved(ctx context.Context, projectID, itemID int64)
}

// ConstraintObserver is told about every newly stored constraint judgment
// (consensus.Service implements it: the item's majority becomes its atom
// label, from which the query qrels are derived).
type ConstraintObserver interface {
	ConstraintJudged(ctx context.Context, projectID, itemID int64)
}

// Rater is the signed-in user doing the work.
type Rater struct {
	ID   int64
	Role string
	// Crowd is a participant who entered by a project's crowd link: they
	// hold at most vocab.CrowdLeaseCap leased items in the project, all
	// kinds together.
	Crowd bool
}

// Service implements the rater workflow.
type Service struct {
	st   Store
	obs  Observer           // nil: nobody is told
	cobs ConstraintObserver // nil: nobody is told (ObserveConstraints)
	log  *slog.Logger
	open *openCache
}

// New builds the service. obs (may be nil) is told about every stored
// relevance judgment; constraint judgments reach only an observer
// registered with ObserveConstraints.
func New(st Store, obs Observer, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: st, obs: obs, log: log, open: newOpenCache(openTTL)}
}

// ObserveConstraints registers co (before judgments arrive): it is told
// about every stored constraint judgment.
func (s *Service) ObserveConstraints(co ConstraintObserver) { s.cobs = co }

// MaxQueue is the most tasks one queue request leases: the current task, a
// batch of preloaded ones (api.QueueAsk), and room for those judged
// offline but not yet sent.
const MaxQueue = vocab.MaxQueue

// Limits on free text, in bytes.
const (
	maxComment    = vocab.MaxComment
	maxSkipReason = vocab.MaxSkipReason
	maxParaphrase = vocab.MaxParaphrase
	maxTimeSpent  = int64(24 * time.Hour / time.Millisecond)
)

// project loads a project the rater may work in: a member, or an admin.
func (s *Service) project(ctx context.Context, r Rater, name string) (store.Project, error) {
	p, member, err := s.st.ProjectForUser(ctx, name, r.ID)
	if err != nil {
		return p, err
	}
	if !store.MayEnterProject(r.Role, member) {
		return p, fmt.Errorf("judging: not a member of project %q: %w", name, apperr.ErrForbidden)
	}
	return p, nil
}

// ratersFor is how many raters an item of a kind gets: one paraphrase per
// templated query, three validations per paraphrase (majority vote), and the
// project's r for relevance.
func ratersFor(p store.Project, kind string) int {
	switch kind {
	case vocab.KindParaphrase:
		return 1
	case vocab.KindValidation:
		return 3
	}
	return p.RatersPerItem
}

func validKind(k string) bool {
	return k == vocab.KindRelevance || k == vocab.KindParaphrase || k == vocab.KindValidation || k == vocab.KindConstraint
}

func leaseParams(p store.Project, r Rater, kind string, n int) store.LeaseParams {
	return store.LeaseParams{
		ProjectID: p.ID, UserID: r.ID, Kind: kind, N: n,
		Raters: ratersFor(p, kind), GoldRate: float64(p.GoldRate),
		Lease: time.Duration(p.LeaseSeconds) * time.Second,
	}
}

// Queue leases up to req.N tasks (the rater's live leases first) and
// reports progress.
func (s *Service) Queue(ctx context.Context, r Rater, project string, req QueueRequest) (Queue, error) {
	if req.Kind == "" {
		req.Kind = vocab.KindRelevance
	}
	if !validKind(req.Kind) {
		return Queue{}, apperr.Invalidf("kind", "must be relevance, paraphrase, validation or constraint")
	}
	if req.N == 0 {
		req.N = 2
	}
	if req.N < 0 || req.N > MaxQueue {
		return Queue{}, apperr.Invalidf("n", "must be between 1 and %d", MaxQueue)
	}
	p, err := s.project(ctx, r, project)
	if err != nil {
		return Queue{}, err
	}
	if r.Crowd && req.N > vocab.CrowdLeaseCap {
		req.N = vocab.CrowdLeaseCap
	}
	paused, reason, err := s.paused(ctx, p, r)
	if err != nil {
		return Queue{}, err
	}
	var work store.CrowdWork
	quota := r.Crowd && (p.CrowdQuotaItems > 0 || p.CrowdQuotaMinutes > 0)
	if quota {
		if work, err = s.st.CrowdWorkOf(ctx, p.ID, r.ID); err != nil {
			return Queue{}, err
		}
		if !paused && store.QuotaReached(p, work) {
			return s.completed(ctx, p, r, req.Kind)
		}
		// No more leases than the quota still needs.
		if p.CrowdQuotaItems > 0 {
			req.N = max(1, min(req.N, p.CrowdQuotaItems-work.Items))
		}
	}
	lp := leaseParams(p, r, req.Kind, req.N)
	lp.NoNew = paused
	if r.Crowd {
		// The cap counts the participant's leases of every kind.
		lp.TotalCap = vocab.CrowdLeaseCap
	}
	lp.HoldIdle = totalIdle
	as, tds, pr, err := s.st.LeaseTasks(ctx, lp)
	if err != nil {
		return Queue{}, err
	}
	q := Queue{Tasks: []Task{}}
	for i, a := range as {
		t, err := taskView(p, a, tds[i])
		if err != nil {
			return Queue{}, err
		}
		q.Tasks = append(q.Tasks, t)
	}
	avail, err := s.available(ctx, lp, pr, len(q.Tasks) == 0)
	if err != nil {
		return Queue{}, err
	}
	q.Progress = Progress{Done: pr.Done, Skipped: pr.Skipped, Leased: pr.Leased, Available: avail, ActiveMs: pr.ActiveMs}
	q.Paused, q.PauseReason = paused, reason
	if len(q.Tasks) == 0 && pr.Done > 0 && !paused {
		q.CompletionCode = p.CompletionCode
		if r.Crowd {
			q.CompletionURL = p.CrowdCompletionURL
			// Nothing left for them: they are done as far as the
			// payment table goes.
			if err := s.st.EndCrowdWork(ctx, p.ID, r.ID, false); err != nil {
				return Queue{}, err
			}
		}
	}
	return q, nil
}

// completed is the queue answer of a crowd participant who reached the
// project's quota: no tasks (their leases are given back), Completed, the
// completion code and the URL back to the crowd platform. The first such
// answer is recorded for the payment table.
func (s *Service) completed(ctx context.Context, p store.Project, r Rater, kind string) (Queue, error) {
	if err := s.st.EndCrowdWork(ctx, p.ID, r.ID, true); err != nil {
		return Queue{}, err
	}
	lp := leaseParams(p, r, kind, 1)
	lp.NoNew = true
	_, _, pr, err := s.st.LeaseTasks(ctx, lp)
	if err != nil {
		return Queue{}, err
	}
	return Queue{
		Tasks:          []Task{},
		Progress:       Progress{Done: pr.Done, Skipped: pr.Skipped, ActiveMs: pr.ActiveMs},
		Completed:      true,
		CompletionCode: p.CompletionCode,
		CompletionURL:  p.CrowdCompletionURL,
	}, nil
}

// paused applies the project's gold accuracy check to the rater: when the
// project pauses raters below the threshold and this one has judged
// enough gold items with too few right, they get no new items (of any
// kind). Researchers and admins are never paused.
func (s *Service) paused(ctx context.Context, p store.Project, r Rater) (bool, string, error) {
	q := store.QualityOf(p)
	if !q.GoldPause || q.GoldMinAccuracy <= 0 || r.Role != vocab.RoleAnnotator {
		return false, "", nil
	}
	g, err := s.st.GoldRecordOf(ctx, p.ID, r.ID)
	if err != nil {
		return false, "", err
	}
	if !store.BelowGold(q, g) {
		return false, "", nil
	}
	s.log.Info("rater paused by the gold accuracy check", "project", p.Name, "user", r.ID, "gold_judged", g.Judged, "gold_correct", g.Correct)
	return true, fmt.Sprintf("Your answers agree with the reference answers on %d of the %d check items you judged, below this project's minimum of %.0f%%. "+
		"New items are paused until a researcher reviews your work; judgments of items already on your screen are still saved.",
		g.Correct, g.Judged, 100*q.GoldMinAccuracy), nil
}

// Task returns the task view of an item assigned to the rater; an item
// assigned to someone else is ErrForbidden.
func (s *Service) Task(ctx context.Context, r Rater, itemID int64) (Task, error) {
	td, a, err := s.assigned(ctx, r, itemID)
	if err != nil {
		return Task{}, err
	}
	p, err := s.st.ProjectByID(ctx, td.Item.ProjectID)
	if err != nil {
		return Task{}, err
	}
	return taskView(p, a, td)
}

// assigned loads an item (with its query and document) and the rater's
// assignment of it, in one round trip; the rater must still be a member
// of the item's project (or an admin).
func (s *Service) assigned(ctx context.Context, r Rater, itemID int64) (store.TaskData, store.Assignment, error) {
	td, a, err := s.st.AssignedTask(ctx, itemID, r.ID)
	if err != nil {
		return td, store.Assignment{}, err
	}
	if !store.MayEnterProject(r.Role, td.Member) {
		// Removed from the project: their assignments no longer open it.
		return td, store.Assignment{}, fmt.Errorf("judging: you are no longer a member of the project of item %d: %w", itemID, apperr.ErrForbidden)
	}
	if a == nil {
		return td, store.Assignment{}, fmt.Errorf("judging: item %d is not assigned to you: %w", itemID, apperr.ErrForbidden)
	}
	return td, *a, nil
}

func taskView(p store.Project, a store.Assignment, td store.TaskData) (Task, error) {
	it := td.Item
	t := Task{
		AssignmentID: a.ID, ItemID: it.ID, Kind: it.Kind, Project: p.Name,
		Query: QueryViewOf(td.Query), LeaseExpiresAt: a.LeaseExpiresAt,
	}
	if td.Document != nil {
		dv := DocumentViewOf(*td.Document)
		t.Document = &dv
	}
	if it.Kind == vocab.KindValidation {
		var pl itemPayload
		if err := json.Unmarshal(it.Payload, &pl); err != nil {
			return Task{}, fmt.Errorf("judging: item %d payload: %w", it.ID, err)
		}
		t.Paraphrase = pl.Paraphrase
	}
	if it.Kind == vocab.KindConstraint {
		var pl store.ConstraintPayload
		if err := json.Unmarshal(it.Payload, &pl); err != nil {
			return Task{}, fmt.Errorf("judging: item %d payload: %w", it.ID, err)
		}
		t.Constraint = &ConstraintView{AtomID: pl.AtomID, Text: pl.Constraint}
	}
	return t, nil
}

// itemPayload is items.payload of a validation task.
type itemPayload struct {
	Paraphrase       string `json:"paraphrase,omitempty"`
	AuthorID         int64  `json:"author_id,omitempty"`
	ParaphraseItemID int64  `json:"paraphrase_item_id,omitempty"`
	JudgmentClientID string `json:"judgment_client_id,omitempty"`
}

// Stats summarises a project's judging for researchers.
func (s *Service) Stats(ctx context.Context, r Rater, project string) (ProjectStats, error) {
	p, err := s.project(ctx, r, project)
	if err != nil {
		return ProjectStats{}, err
	}
	c, err := s.st.CountItems(ctx, p.ID)
	if err != nil {
		return ProjectStats{}, err
	}
	return ProjectStats{Project: p.Name, Items: c.Items, Judgments: c.Judgments, Contradictions: c.Contradictions, Annotators: c.Annotators}, nil
}

// Instructions returns the project's instructions for a task kind:
// projects.instructions is {"<kind>": {"text": …, "examples": […]}}; a
// project without its own gets the built-in defaults.
func (s *Service) Instructions(ctx context.Context, r Rater, project, kind string) (Instructions, error) {
	if kind == "" {
		kind = vocab.KindRelevance
	}
	if !validKind(kind) {
		return Instructions{}, apperr.Invalidf("kind", "must be relevance, paraphrase, validation or constraint")
	}
	p, err := s.project(ctx, r, project)
	if err != nil {
		return Instructions{}, err
	}
	var all map[string]Instructions
	if len(p.Instructions) > 0 {
		if err := json.Unmarshal(p.Instructions, &all); err != nil {
			s.log.Warn("project instructions are not per-kind JSON; using defaults", "project", p.Name, "err", err)
		}
	}
	if in, ok := all[kind]; ok && in.Text != "" {
		return in, nil
	}
	return DefaultInstructions(kind), nil
}

// QueryViewOf prepares a query for judging: the marked text with atom spans
// (spans that do not fit the text are dropped to -1) and the expression.
func QueryViewOf(q store.Query) QueryView {
	text := q.Text
	if q.OriginalQuery != "" {
		if _, t, err := boolexpr.ParseMarked(q.OriginalQuery); err == nil {
			text = t
		}
	}
	v := QueryView{ID: q.ID, Text: text, Template: q.Template, Atoms: []AtomView{}}
	if len(q.Expression) > 0 && string(q.Expression) != "null" {
		if e, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms)); err == nil {
			v.Expression = e
		}
	}
	for i, a := range q.Atoms {
		av := AtomView{Index: i, Text: a.Text, Start: a.Start, End: a.End}
		if a.Start < 0 || a.End > len(text) || a.Start >= a.End || text[a.Start:a.End] == "" {
			av.Start, av.End = -1, -1
		}
		if v.Expression != nil {
			av.Negated = v.Expression.Negated(i)
		}
		v.Atoms = append(v.Atoms, av)
	}
	return v
}

// DocumentViewOf splits a document into its sentences. Offsets that are out
// of order or out of range are ignored, so a bad import never hides text.
func DocumentViewOf(d store.Document) DocumentView {
	v := DocumentView{ID: d.ID, ExtID: d.ExtID, Title: d.Title, Sentences: []string{}}
	var starts []int
	prev := -1
	for _, s := range d.SentenceStarts {
		if int(s) > prev && int(s) < len(d.Body) {
			starts = append(starts, int(s))
			prev = int(s)
		}
	}
	if len(starts) == 0 || starts[0] != 0 {
		starts = append([]int{0}, starts...)
	}
	for i, st := range starts {
		end := len(d.Body)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		v.Sentences = append(v.Sentences, strings.TrimSpace(d.Body[st:end]))
	}
	return v
}
