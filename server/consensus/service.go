package consensus

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"boolpool/server/apperr"
	"boolpool/server/judging"
	"boolpool/server/store"
)

// Service owns the stored consensus: it refreshes an item's consensus after
// every judgment (judging.Observer) and adjudication, tells its listeners
// (the live dashboards) about each refresh, repairs a project's consensus
// when a refresh was lost (Current), and serves the adjudication queue.
//
// Judgments reported by the write path are refreshed by one background
// worker, in order, so that a rater's request does not wait for derived
// data; Close stops it after applying everything queued.
type Service struct {
	st  *store.Store
	log *slog.Logger

	listenMu   sync.RWMutex
	listeners  []Listener           // AddItemListener
	constraint []ConstraintListener // AddConstraintListener

	// itemMu makes each item's refresh and its delivery to the listeners
	// one step, so that a listener never takes an older refresh of an
	// item after a newer one (the worker, a caller doing backpressure
	// work and adjudications run concurrently). Different items proceed
	// in parallel: one lock for all items capped the whole server at one
	// refresh at a time (~150 judgments/s).
	itemMu [64]sync.Mutex

	// mu guards closed and every send on jobs (Close closes jobs under it).
	mu     sync.RWMutex
	closed bool
	jobs   chan job
	// queuedMu guards queued: the items on jobs that the worker has not
	// taken yet. A judgment of a queued item is not queued again: the
	// refresh to come reads every judgment stored before it runs (a burst
	// of judgments of one item costs one refresh, and the queue holds
	// distinct items, so it does not fill up under a crowd).
	queuedMu sync.Mutex
	queued   map[int64]bool
	start    sync.Once
	done     chan struct{} // closed when the worker has stopped

	repairMu sync.Mutex
	repaired map[int64]bool // projects whose lost refreshes were repaired since start
}

// Listener is told about every refreshed consensus of an item, in order
// per item, after it is stored: ref carries the votes and adjudication it
// was computed from. It must not call back into the Service for the same
// item.
type Listener interface {
	ConsensusChanged(ctx context.Context, projectID, itemID int64, ref Refreshed)
}

// Change is one item's refresh, as a BatchListener takes it.
type Change struct {
	ProjectID, ItemID int64
	Ref               Refreshed
}

// BatchListener is a Listener that can also take a burst of refreshes at
// once (the worker refreshes queued items together): one round trip for
// the burst where it would make one per item. The changes are in item
// order, each item once.
type BatchListener interface {
	Listener
	ConsensusChangedMany(ctx context.Context, changes []Change)
}

// ItemListener adapts a function told only which item changed (it reads
// what it needs itself) to a Listener.
type ItemListener func(ctx context.Context, projectID, itemID int64)

// ConsensusChanged implements Listener.
func (f ItemListener) ConsensusChanged(ctx context.Context, projectID, itemID int64, _ Refreshed) {
	f(ctx, projectID, itemID)
}

var _ judging.Observer = (*Service)(nil)

// job is one reported item change, or (flush != nil) a marker that the
// worker closes once everything queued before it is applied.
type job struct {
	project, item int64
	flush         chan struct{}
}

// queueCap bounds the items waiting for a refresh; past it a reporting
// request refreshes its item itself (backpressure).
const queueCap = 8192

// NewService builds the service; its worker starts with the first
// reported judgment. log may be nil.
func NewService(st *store.Store, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: st, log: log, jobs: make(chan job, queueCap), queued: map[int64]bool{}, done: make(chan struct{}), repaired: map[int64]bool{}}
}

// AddItemListener registers a listener of every refreshed relevance
// consensus (before judgments arrive).
func (s *Service) AddItemListener(l Listener) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	s.listeners = append(s.listeners, l)
}

// AddConstraintListener registers a listener of every changed atom label
// (before judgments arrive).
func (s *Service) AddConstraintListener(l ConstraintListener) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	s.constraint = append(s.constraint, l)
}

// JudgmentSaved implements judging.Observer: it queues the item for the
// worker, which refreshes its consensus and tells the listeners, so the
// rater's request returns at once. When the queue is full (or the service
// is closed) the caller does the work itself (backpressure, never a lost
// update). Failures are logged, not returned: the judgment itself is
// stored, and a stale consensus is repaired by the next judgment of the
// item or by Current (exports and the adjudication queue call it).
func (s *Service) JudgmentSaved(ctx context.Context, projectID, itemID int64) {
	j := job{project: projectID, item: itemID}
	s.mu.RLock()
	if !s.closed {
		s.start.Do(func() { go s.work() })
		s.queuedMu.Lock()
		if s.queued[itemID] {
			// Its refresh has not started: it will read this judgment.
			s.queuedMu.Unlock()
			s.mu.RUnlock()
			return
		}
		select {
		case s.jobs <- j:
			s.queued[itemID] = true
			s.queuedMu.Unlock()
			s.mu.RUnlock()
			return
		default:
		}
		s.queuedMu.Unlock()
	}
	s.mu.RUnlock()
	s.run(context.WithoutCancel(ctx), j)
}

// take marks a job taken off the queue: a judgment of its item reported
// from now on is queued again (the refresh about to run may not read it).
func (s *Service) take(j job) {
	if j.flush != nil {
		return
	}
	s.queuedMu.Lock()
	delete(s.queued, j.item)
	s.queuedMu.Unlock()
}

// Flush waits until every judgment reported before the call is applied.
func (s *Service) Flush() {
	s.mu.RLock()
	if s.closed { // Close applies everything
		s.mu.RUnlock()
		<-s.done
		return
	}
	s.start.Do(func() { go s.work() })
	done := make(chan struct{})
	s.jobs <- job{flush: done} // the worker keeps draining: this send completes
	s.mu.RUnlock()
	<-done
}

// Close applies every queued judgment and stops the worker. Judgments
// reported afterwards are refreshed by their caller.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return
	}
	s.closed = true
	s.start.Do(func() { go s.work() })
	close(s.jobs)
	s.mu.Unlock()
	<-s.done
}

// work applies queued jobs until Close; a burst is applied once per item
// (the refresh reads the item's current judgments, which include every
// queued one).
func (s *Service) work() {
	defer close(s.done)
	for j := range s.jobs {
		s.take(j)
		batch := []job{j}
	drain:
		for len(batch) < cap(s.jobs) {
			select {
			case j2, ok := <-s.jobs:
				if !ok {
					break drain
				}
				s.take(j2)
				batch = append(batch, j2)
			default:
				break drain
			}
		}
		// Distinct items of a burst are refreshed together; a flush
		// marker waits for everything queued before it.
		seen := map[int64]bool{}
		var pending []job
		for _, b := range batch {
			if b.flush != nil {
				s.runMany(pending)
				pending = nil
				close(b.flush)
				continue
			}
			if !seen[b.item] {
				seen[b.item] = true
				pending = append(pending, b)
			}
		}
		s.runMany(pending)
	}
}

// runMany refreshes a burst of distinct items, store.MaxConsensusBatch at
// a time, each chunk in one transaction (ItemsChanged). A chunk that fails
// is refreshed again item by item, so one bad item costs the others
// nothing and every failure is logged with its item.
func (s *Service) runMany(jobs []job) {
	for len(jobs) > 0 {
		chunk := jobs[:min(len(jobs), store.MaxConsensusBatch)]
		jobs = jobs[len(chunk):]
		if len(chunk) == 1 {
			s.run(context.Background(), chunk[0])
			continue
		}
		ids := make([]int64, len(chunk))
		for i, j := range chunk {
			ids[i] = j.item
		}
		if err := s.ItemsChanged(context.Background(), ids); err != nil {
			s.log.Warn("consensus refresh of a burst, refreshing item by item", "items", len(ids), "err", err)
			for _, j := range chunk {
				s.run(context.Background(), j)
			}
		}
	}
}

func (s *Service) run(ctx context.Context, j job) {
	if err := s.ItemChanged(ctx, j.project, j.item); err != nil {
		s.log.Error("consensus refresh", "project", j.project, "item", j.item, "err", err)
	}
}

func (s *Service) itemLock(itemID int64) *sync.Mutex {
	return &s.itemMu[uint64(itemID)%uint64(len(s.itemMu))]
}

// ItemChanged recomputes an item's consensus, stores it and tells the
// listeners.
func (s *Service) ItemChanged(ctx context.Context, projectID, itemID int64) error {
	mu := s.itemLock(itemID)
	mu.Lock()
	defer mu.Unlock()
	ref, err := s.Refresh(ctx, itemID)
	if err != nil {
		return err
	}
	s.notify(ctx, projectID, itemID, ref)
	return nil
}

// ItemsChanged is ItemChanged for distinct items at once (at most
// store.MaxConsensusBatch): their consensus is recomputed and stored in
// one transaction (store.RefreshConsensusMany) and the listeners are told
// in item order, a BatchListener once for all of them. Items that no
// longer exist or are not relevance items are skipped.
func (s *Service) ItemsChanged(ctx context.Context, itemIDs []int64) error {
	unlock := s.lockItems(itemIDs)
	defer unlock()
	rs, err := s.st.RefreshConsensusMany(ctx, itemIDs, decide)
	if err != nil {
		return fmt.Errorf("consensus: refresh %d items: %w", len(itemIDs), err)
	}
	changes := make([]Change, len(rs))
	for i, r := range rs {
		ref := Refreshed{Row: r.Row, OK: r.OK, Changed: r.Changed, Votes: VotesOf(r.Current)}
		if r.Adj != nil {
			rel := int(r.Adj.Relevance)
			ref.Adj = &rel
		}
		changes[i] = Change{ProjectID: r.ProjectID, ItemID: r.ItemID, Ref: ref}
	}
	s.listenMu.RLock()
	ls := s.listeners
	s.listenMu.RUnlock()
	for _, l := range ls {
		if bl, ok := l.(BatchListener); ok {
			bl.ConsensusChangedMany(ctx, changes)
			continue
		}
		for _, c := range changes {
			l.ConsensusChanged(ctx, c.ProjectID, c.ItemID, c.Ref)
		}
	}
	return nil
}

// lockItems takes the item locks (itemMu) of every item, each stripe once
// and in stripe order (a single item's refresh holds one stripe, so the
// two cannot wait for each other), and returns their unlock.
func (s *Service) lockItems(itemIDs []int64) func() {
	var held [len(s.itemMu)]bool
	for _, id := range itemIDs {
		held[uint64(id)%uint64(len(s.itemMu))] = true
	}
	for i := range held {
		if held[i] {
			s.itemMu[i].Lock()
		}
	}
	return func() {
		for i := range held {
			if held[i] {
				s.itemMu[i].Unlock()
			}
		}
	}
}

func (s *Service) notify(ctx context.Context, projectID, itemID int64, ref Refreshed) {
	s.listenMu.RLock()
	ls := s.listeners
	s.listenMu.RUnlock()
	for _, l := range ls {
		l.ConsensusChanged(ctx, projectID, itemID, ref)
	}
}

// Refreshed is the outcome of recomputing one item.
type Refreshed struct {
	Row     store.ConsensusRow
	OK      bool // the item has a consensus (some vote or an adjudication)
	Changed bool
	Votes   []Vote // the current votes it was computed from
	Adj     *int   // the adjudicated relevance, if any
}

// Refresh recomputes an item's consensus from its current judgments and
// latest adjudication and stores it (audited when it changes). It tells
// no listener: ItemChanged does.
func (s *Service) Refresh(ctx context.Context, itemID int64) (Refreshed, error) {
	var out Refreshed
	row, ok, changed, err := s.st.RefreshConsensus(ctx, itemID, func(current []store.Judgment, adj *store.Adjudication) (store.ConsensusRow, bool) {
		out.Votes = VotesOf(current)
		if adj != nil {
			rel := int(adj.Relevance)
			out.Adj = &rel
		}
		return decide(current, adj)
	})
	if err != nil {
		return out, fmt.Errorf("consensus: refresh item %d: %w", itemID, err)
	}
	out.Row, out.OK, out.Changed = row, ok, changed
	return out, nil
}

// decide is the consensus rule every refresh applies (store.DecideFunc).
func decide(current []store.Judgment, adj *store.Adjudication) (store.ConsensusRow, bool) {
	var a *int
	if adj != nil {
		rel := int(adj.Relevance)
		a = &rel
	}
	d, ok := Decide(VotesOf(current), a)
	return RowOf(d), ok
}

// VotesOf turns current judgments into votes (non-relevance ones skipped).
func VotesOf(js []store.Judgment) []Vote {
	out := make([]Vote, 0, len(js))
	for _, j := range js {
		if j.Relevance == nil || j.SkipReason != "" {
			continue
		}
		out = append(out, Vote{Rater: j.UserID, Label: int(*j.Relevance), Contradiction: j.Contradiction})
	}
	return out
}

// RowOf converts a decision into a consensus row (item fields left zero).
func RowOf(d Decision) store.ConsensusRow {
	return store.ConsensusRow{Relevance: int16(d.Relevance), Status: d.Status, Votes: d.Votes, RelevantVotes: d.RelevantVotes,
		Contradictions: d.Contradictions, NeedsAdjudication: d.NeedsAdjudication}
}

// View is the wire form of a stored consensus.
func View(r store.ConsensusRow) ConsensusView {
	return ConsensusView{Relevance: int(r.Relevance), Status: r.Status, Votes: r.Votes, RelevantVotes: r.RelevantVotes,
		Contradictions: r.Contradictions, NeedsAdjudication: r.NeedsAdjudication}
}

// Adjudicate records a researcher's decision on a relevance item,
// refreshes its consensus and tells the listeners; both the decision and
// the consensus change are audited.
func (s *Service) Adjudicate(ctx context.Context, userID, itemID int64, req AdjudicationRequest) (AdjudicationResult, Refreshed, error) {
	if req.Relevance == nil {
		return AdjudicationResult{}, Refreshed{}, apperr.Invalidf("relevance", "required (0-3)")
	}
	if *req.Relevance < 0 || *req.Relevance > 3 {
		return AdjudicationResult{}, Refreshed{}, apperr.Invalidf("relevance", "must be 0, 1, 2 or 3")
	}
	note := strings.TrimSpace(req.Note)
	if len(note) > 4000 {
		return AdjudicationResult{}, Refreshed{}, apperr.Invalidf("note", "longer than 4000 bytes")
	}
	mu := s.itemLock(itemID)
	mu.Lock()
	defer mu.Unlock()
	a, err := s.st.AddAdjudication(ctx, itemID, userID, int16(*req.Relevance), note)
	if err != nil {
		return AdjudicationResult{}, Refreshed{}, err
	}
	ref, err := s.Refresh(ctx, itemID)
	if err != nil {
		return AdjudicationResult{}, ref, err
	}
	s.notify(ctx, ref.Row.ProjectID, itemID, ref)
	u, err := s.st.UserByID(ctx, userID)
	if err != nil {
		return AdjudicationResult{}, ref, err
	}
	return AdjudicationResult{
		Adjudication: AdjudicationView{ID: a.ID, ItemID: itemID, Adjudicator: u.Username, Relevance: int(a.Relevance), Note: a.Note, CreatedAt: a.CreatedAt},
		Consensus:    View(ref.Row),
	}, ref, nil
}

// Queue lists the items of a project awaiting adjudication with everything
// the adjudicator compares side by side.
func (s *Service) Queue(ctx context.Context, projectID int64, limit, offset int) (AdjudicationQueue, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	offset = max(offset, 0)
	if err := s.repairOnce(ctx, projectID); err != nil {
		return AdjudicationQueue{}, err
	}
	rows, total, err := s.st.AdjudicationQueue(ctx, projectID, limit, offset)
	if err != nil {
		return AdjudicationQueue{}, err
	}
	names, err := s.st.Usernames(ctx)
	if err != nil {
		return AdjudicationQueue{}, err
	}
	out := AdjudicationQueue{Total: total, Items: make([]AdjudicationItem, 0, len(rows))}
	for _, r := range rows {
		it, err := s.item(ctx, r, names)
		if err != nil {
			return AdjudicationQueue{}, err
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// Item is one item as the adjudication view shows it (in the queue or not).
func (s *Service) Item(ctx context.Context, itemID int64) (AdjudicationItem, error) {
	r, err := s.st.ConsensusOf(ctx, itemID)
	if err != nil {
		return AdjudicationItem{}, err
	}
	names, err := s.st.Usernames(ctx)
	if err != nil {
		return AdjudicationItem{}, err
	}
	return s.item(ctx, r, names)
}

func (s *Service) item(ctx context.Context, r store.ConsensusRow, names map[int64]string) (AdjudicationItem, error) {
	it, err := s.st.ItemByID(ctx, r.ItemID)
	if err != nil {
		return AdjudicationItem{}, err
	}
	q, err := s.st.QueryByID(ctx, it.QueryID)
	if err != nil {
		return AdjudicationItem{}, err
	}
	out := AdjudicationItem{ItemID: it.ID, IsGold: it.IsGold, Query: judging.QueryViewOf(q), QueryExtID: q.ExtID,
		Consensus: View(r), Judgments: []JudgmentView{}, Adjudications: []AdjudicationView{}}
	if it.DocumentID != nil {
		d, err := s.st.DocumentByID(ctx, *it.DocumentID)
		if err != nil {
			return AdjudicationItem{}, err
		}
		dv := judging.DocumentViewOf(d)
		out.Document = &dv
	}
	current, err := s.st.CurrentJudgments(ctx, it.ID)
	if err != nil {
		return AdjudicationItem{}, err
	}
	for _, j := range current {
		if j.Relevance == nil {
			continue
		}
		jv := judgmentView(j, names)
		if len(j.Attributions) > 0 {
			if err := json.Unmarshal(j.Attributions, &jv.Attributions); err != nil {
				return AdjudicationItem{}, fmt.Errorf("consensus: attributions of judgment %d: %w", j.ID, err)
			}
		}
		out.Judgments = append(out.Judgments, jv)
	}
	adjs, err := s.st.AdjudicationsOf(ctx, it.ID)
	if err != nil {
		return AdjudicationItem{}, err
	}
	for _, a := range adjs {
		out.Adjudications = append(out.Adjudications, AdjudicationView{ID: a.ID, ItemID: a.ItemID, Adjudicator: names[a.UserID],
			Relevance: int(a.Relevance), Note: a.Note, CreatedAt: a.CreatedAt})
	}
	return out, nil
}

// Sync recomputes the consensus of every relevance item of a project from
// the stored judgments and adjudications and writes the rows that differ
// (one transaction, one audit entry).
func (s *Service) Sync(ctx context.Context, projectID int64) (changed int, err error) {
	return syncProject(ctx, s.st, projectID)
}

// SyncIfStale runs Sync only when some judgment or adjudication is newer
// than its item's stored consensus (the usual case is that per-item
// refreshes kept it current and nothing needs doing).
func (s *Service) SyncIfStale(ctx context.Context, projectID int64) (changed int, err error) {
	return syncIfStale(ctx, s.st, projectID)
}

// repairOnce runs SyncIfStale the first time a project's consensus is read
// since start: refreshes lost when a process stopped between storing a
// judgment and refreshing its item show up in the adjudication queue.
func (s *Service) repairOnce(ctx context.Context, projectID int64) error {
	s.repairMu.Lock()
	done := s.repaired[projectID]
	s.repairMu.Unlock()
	if done {
		return nil
	}
	if _, err := s.SyncIfStale(ctx, projectID); err != nil {
		return err
	}
	s.repairMu.Lock()
	s.repaired[projectID] = true
	s.repairMu.Unlock()
	return nil
}

// Current brings a project's stored consensus up to date with every stored
// judgment and adjudication, whether or not its per-item refresh ran (say,
// the process stopped between storing a judgment and refreshing its item,
// or the refresh is still queued). It is the guarantee exports read: after
// Current, the consensus table reflects every acknowledged judgment.
func Current(ctx context.Context, st *store.Store, projectID int64) error {
	_, err := syncIfStale(ctx, st, projectID)
	return err
}

// Repaired counts what Repair rewrote.
type Repaired struct {
	Consensus int // relevance consensus rows written or removed
	Labels    int // atom labels of constraint items written or removed
}

// Repair brings everything a project's judgments derive at once up to
// date: the relevance consensus (as Current: a full sync only when some
// judgment or adjudication is newer than its item's consensus) and the
// atom labels of its constraint items (SyncConstraints). A process killed
// between committing a judgment and its refresh leaves these stale; the
// sweep of server/app calls Repair for every project when a server or
// worker starts, so they do not wait for the next export.
func Repair(ctx context.Context, st *store.Store, projectID int64) (Repaired, error) {
	var r Repaired
	var err error
	if r.Consensus, err = syncIfStale(ctx, st, projectID); err != nil {
		return r, err
	}
	if r.Labels, err = SyncConstraints(ctx, st, projectID); err != nil {
		return r, fmt.Errorf("consensus: sync the constraint labels of project %d: %w", projectID, err)
	}
	return r, nil
}

func syncIfStale(ctx context.Context, st *store.Store, projectID int64) (int, error) {
	stale, err := st.ConsensusStale(ctx, projectID)
	if err != nil || !stale {
		return 0, err
	}
	return syncProject(ctx, st, projectID)
}

func syncProject(ctx context.Context, st *store.Store, projectID int64) (int, error) {
	changed, err := st.SyncConsensus(ctx, projectID, decide)
	if err != nil {
		return 0, fmt.Errorf("consensus: sync project %d: %w", projectID, err)
	}
	return changed, nil
}
