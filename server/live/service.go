package live

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/metrics"
	"boolpool/server/store"
)

// Service keeps, for projects someone has watched since start-up, an
// in-memory State that it updates on every consensus refresh (it is a
// consensus.Listener: the consensus service tells it, per item, in order)
// and publishes (throttled) to the Hub. It makes no consensus itself.
// Close stops its timers and background reloads.
type Service struct {
	st       *store.Store
	hub      *Hub
	log      *slog.Logger
	throttle time.Duration
	// staleCheck is how often a request compares a loaded state's
	// fingerprint with the database (dashboards may poll).
	staleCheck time.Duration

	mu       sync.Mutex
	projects map[int64]*project

	bg background
}

type project struct {
	mu          sync.Mutex
	name        string
	state       *State
	fingerprint string        // store.StateFingerprint when the load began
	checkedAt   time.Time     // when the fingerprint was last compared
	loading     chan struct{} // closed when the load finished
	loadErr     error
	// dirty holds the latest refresh of each item changed while loading,
	// applied once the state is built.
	dirty   map[int64]consensus.Refreshed
	pending bool // a publish is scheduled
}

// NewService builds the service. throttle is the least time between two
// published snapshots of one project (e.g. 250 ms).
func NewService(st *store.Store, hub *Hub, throttle time.Duration, log *slog.Logger) *Service {
	s := &Service{st: st, hub: hub, log: log, throttle: throttle, staleCheck: 2 * time.Second,
		projects: map[int64]*project{}}
	s.bg.init()
	return s
}

// Close stops scheduled publishes and waits for background reloads.
func (s *Service) Close() { s.bg.close() }

// SetStaleCheck sets how often requests compare a loaded state with the
// database (default 2 s; 0 = every request).
func (s *Service) SetStaleCheck(d time.Duration) { s.staleCheck = d }

// Hub returns the service's hub.
func (s *Service) Hub() *Hub { return s.hub }

var _ consensus.Listener = (*Service)(nil)

// ConsensusChanged implements consensus.Listener: it applies an item's
// refreshed votes to the project's state, if loaded. Failures are logged:
// the next load rebuilds the state.
func (s *Service) ConsensusChanged(ctx context.Context, projectID, itemID int64, ref consensus.Refreshed) {
	if err := s.apply(ctx, projectID, itemID, ref); err != nil {
		s.log.Error("live update", "project", projectID, "item", itemID, "err", err)
	}
}

func (s *Service) apply(ctx context.Context, projectID, itemID int64, ref consensus.Refreshed) error {
	s.mu.Lock()
	p := s.projects[projectID]
	s.mu.Unlock()
	if p == nil {
		return nil // nobody watches this project: the consensus table is all
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		if p.dirty != nil {
			p.dirty[itemID] = ref
		}
		return nil
	}
	if err := s.applyLocked(ctx, projectID, p, itemID, ref); err != nil {
		return err
	}
	s.schedulePublish(projectID, p)
	return nil
}

// applyLocked updates p.state (p.mu held).
func (s *Service) applyLocked(ctx context.Context, projectID int64, p *project, itemID int64, ref consensus.Refreshed) error {
	if !p.state.HasItem(itemID) {
		li, err := s.st.RelevanceItem(ctx, itemID)
		if err != nil {
			return fmt.Errorf("live: %w", err)
		}
		if !p.state.HasQuery(li.QueryID) {
			// A query imported after the load: rebuild in the background.
			s.bg.goFunc(func(ctx context.Context) { s.reload(ctx, projectID, p) })
			return nil
		}
		p.state.AddItem(itemOf(li))
	}
	for _, v := range ref.Votes {
		if !p.state.HasUser(v.Rater) {
			u, err := s.st.UserByID(ctx, v.Rater)
			if err != nil {
				return fmt.Errorf("live: %w", err)
			}
			p.state.SetUser(u.ID, u.Username)
		}
	}
	p.state.SetItem(itemID, ref.Votes, ref.Adj)
	return nil
}

// schedulePublish publishes the project's snapshot after the throttle
// interval unless a publish is already scheduled (p.mu held).
func (s *Service) schedulePublish(projectID int64, p *project) {
	if p.pending || s.hub.Subscribers(projectID) == 0 {
		return
	}
	p.pending = s.bg.after(s.throttle, func() {
		p.mu.Lock()
		p.pending = false
		snap := p.state.Snapshot(p.name)
		p.mu.Unlock()
		if _, dropped := s.hub.Publish(projectID, snap); dropped > 0 {
			s.log.Warn("dropped slow dashboard subscribers", "project", projectID, "dropped", dropped)
		}
	})
}

// background owns the service's goroutines: throttled publishes (timers)
// and reloads. close stops the timers, cancels the reloads and waits.
type background struct {
	mu     sync.Mutex
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	timers map[*time.Timer]bool
}

func (b *background) init() {
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.timers = map[*time.Timer]bool{}
}

// goFunc runs f in a goroutine unless closed.
func (b *background) goFunc(f func(ctx context.Context)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx)
	}()
}

// after runs f after d unless closed first; false when closed.
func (b *background) after(d time.Duration, f func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.wg.Add(1)
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		defer b.wg.Done()
		b.mu.Lock()
		delete(b.timers, t)
		b.mu.Unlock()
		f()
	})
	b.timers[t] = true
	return true
}

func (b *background) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.cancel()
		for t := range b.timers {
			if t.Stop() {
				b.wg.Done()
			}
		}
		b.timers = map[*time.Timer]bool{}
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// project returns the loaded project state, loading it on first use and
// reloading it when what it was built from besides judgments changed (new
// items, queries, runs, pools or negatives).
func (s *Service) project(ctx context.Context, projectID int64, name string) (*project, error) {
	p, err := s.loaded(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	// Compare at most every fingerprintEvery: dashboards may poll.
	p.mu.Lock()
	due := time.Since(p.checkedAt) >= s.staleCheck
	if due {
		p.checkedAt = time.Now()
	}
	p.mu.Unlock()
	if !due {
		return p, nil
	}
	fp, err := s.st.StateFingerprint(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if fp == p.fingerprint {
		return p, nil
	}
	s.log.Info("live state stale: reloading", "project", projectID)
	s.detach(projectID, p)
	return s.loaded(ctx, projectID, name)
}

// detach forgets p so that the next use loads afresh (subscribers stay:
// they belong to the hub).
func (s *Service) detach(projectID int64, p *project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.projects[projectID] == p {
		delete(s.projects, projectID)
	}
}

func (s *Service) reload(ctx context.Context, projectID int64, p *project) {
	s.detach(projectID, p)
	if _, err := s.loaded(ctx, projectID, p.name); err != nil {
		s.log.Error("live reload", "project", projectID, "err", err)
	}
}

// loaded returns the project's state, loading it if there is none.
func (s *Service) loaded(ctx context.Context, projectID int64, name string) (*project, error) {
	s.mu.Lock()
	p := s.projects[projectID]
	if p == nil {
		p = &project{name: name, loading: make(chan struct{}), dirty: map[int64]consensus.Refreshed{}}
		s.projects[projectID] = p
		s.mu.Unlock()
		s.load(ctx, projectID, p)
	} else {
		s.mu.Unlock()
	}
	select {
	case <-p.loading:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.loadErr != nil {
		return nil, p.loadErr
	}
	return p, nil
}

func (s *Service) load(ctx context.Context, projectID int64, p *project) {
	defer close(p.loading)
	start := time.Now()
	fp, err := s.st.StateFingerprint(ctx, projectID)
	var d Data
	if err == nil {
		d, err = LoadData(ctx, s.st, projectID)
	}
	if err != nil {
		p.mu.Lock()
		p.loadErr = err
		p.mu.Unlock()
		s.mu.Lock()
		delete(s.projects, projectID) // the next request retries
		s.mu.Unlock()
		return
	}
	state := Build(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state, p.fingerprint = state, fp
	// Items refreshed while loading: their latest refresh, applied now
	// (under p.mu, so no later refresh of theirs can come first).
	for id, ref := range p.dirty {
		if err := s.applyLocked(ctx, projectID, p, id, ref); err != nil {
			s.log.Error("live: apply item changed during load", "item", id, "err", err)
		}
	}
	p.dirty = nil
	s.schedulePublish(projectID, p) // a reload reaches open dashboards
	s.log.Info("live state loaded", "project", projectID, "items", len(d.Items), "queries", len(d.Queries),
		"runs", len(d.Runs), "took", time.Since(start).Round(time.Millisecond))
}

// Snapshot returns a project's current figures.
func (s *Service) Snapshot(ctx context.Context, projectID int64, name string) (Snapshot, error) {
	p, err := s.project(ctx, projectID, name)
	if err != nil {
		return Snapshot{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.Snapshot(name), nil
}

// RelevantFound lists the relevant documents of a project and the runs
// that found them.
func (s *Service) RelevantFound(ctx context.Context, projectID int64, name string) ([]RelevantFound, error) {
	p, err := s.project(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.state.RelevantFound()
	if out == nil {
		out = []RelevantFound{}
	}
	return out, nil
}

// IncompleteQueries lists all of a project's queries with unjudged items
// (the snapshot's progress lists the first 200), with their texts.
func (s *Service) IncompleteQueries(ctx context.Context, projectID int64, name string) ([]QueryProgress, error) {
	p, err := s.project(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	list := p.state.IncompleteQueries()
	p.mu.Unlock()
	qs, err := s.st.ListQueries(ctx, projectID, "")
	if err != nil {
		return nil, err
	}
	text := make(map[int64]string, len(qs))
	for _, q := range qs {
		text[q.ID] = q.Text
	}
	for i := range list {
		list[i].Text = text[list[i].QueryID]
	}
	return list, nil
}

// Subscribe registers a dashboard and returns its first snapshot.
func (s *Service) Subscribe(ctx context.Context, projectID int64, name string) (*Subscriber, Snapshot, error) {
	p, err := s.project(ctx, projectID, name)
	if err != nil {
		return nil, Snapshot{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Subscribing under the lock: no update can slip between the first
	// snapshot and the subscription.
	sub := s.hub.Subscribe(projectID)
	return sub, p.state.Snapshot(name), nil
}

// LoadData reads everything a project's State is built from.
func LoadData(ctx context.Context, st *store.Store, projectID int64) (Data, error) {
	proj, err := st.ProjectByID(ctx, projectID)
	if err != nil {
		return Data{}, err
	}
	d := Data{RatersPerItem: proj.RatersPerItem, Quality: store.QualityOf(proj)}
	qs, err := st.ProjectQueries(ctx, projectID)
	if err != nil {
		return d, err
	}
	rowID := make(map[string]int64, len(qs))
	for _, q := range qs {
		d.Queries = append(d.Queries, Query{ID: q.ID, ExtID: q.ExtID, Template: q.Template, Operators: OperatorsOf(q.Expression)})
		rowID[q.ExtID] = q.ID
	}
	for _, p := range NevIRPairs(qs) {
		d.NevIRPairs = append(d.NevIRPairs, NevIRPair{Q1: rowID[p.Query1], Q2: rowID[p.Query2], Doc1: p.Doc1, Doc2: p.Doc2})
	}
	runs, err := st.ListRuns(ctx, projectID)
	if err != nil {
		return d, err
	}
	rankings := metrics.Rankings[int64]{}
	err = st.EachRunTop(ctx, projectID, RankDepth, func(r store.RunResultTop) error {
		rankings.Add(r.RunID, r.QueryID, r.DocExtID, r.Score)
		return nil
	})
	if err != nil {
		return d, err
	}
	for _, r := range runs {
		d.Runs = append(d.Runs, Run{Name: r.Name, Ranked: rankings.Ranked(r.ID)})
	}
	if d.Negatives, err = st.NegativeQrels(ctx, projectID); err != nil {
		return d, err
	}
	items, err := st.RelevanceItems(ctx, projectID)
	if err != nil {
		return d, err
	}
	for _, li := range items {
		d.Items = append(d.Items, itemOf(li))
	}
	pv, err := consensus.LoadProjectVotes(ctx, st, projectID)
	d.Votes, d.Adjudicated, d.Users = pv.Votes, pv.Adjudicated, pv.Users
	return d, err
}

// itemOf converts a stored item: the gold answer is a grade (2) or an
// object with one ({"relevance": 2}); sources are the pool's run names.
func itemOf(li store.RelevanceItem) Item {
	it := Item{ID: li.ID, QueryID: li.QueryID, DocExtID: li.DocExtID, Gold: -1}
	if li.IsGold && len(li.GoldAnswer) > 0 {
		var grade int
		var obj struct {
			Relevance *int `json:"relevance"`
		}
		if json.Unmarshal(li.GoldAnswer, &grade) == nil && grade >= 0 && grade < Labels {
			it.Gold = grade
		} else if json.Unmarshal(li.GoldAnswer, &obj) == nil && obj.Relevance != nil && *obj.Relevance >= 0 && *obj.Relevance < Labels {
			it.Gold = *obj.Relevance
		}
	}
	if len(li.Sources) > 0 {
		var src map[string]json.RawMessage
		if json.Unmarshal(li.Sources, &src) == nil {
			for name := range src {
				it.Sources = append(it.Sources, name)
			}
		}
	}
	return it
}

// decide is the consensus of item id under d's votes and adjudications
// (ok false: none yet).
func (d Data) decide(id int64) (dec consensus.Decision, ok bool) {
	return consensus.ProjectVotes{Votes: d.Votes, Adjudicated: d.Adjudicated}.Decide(id)
}

// ConsensusRows computes the consensus rows of d (what the consensus table
// holds after a sync of the same data).
func ConsensusRows(d Data) []store.ConsensusRow {
	var rows []store.ConsensusRow
	for _, it := range d.Items {
		dec, ok := d.decide(it.ID)
		if !ok {
			continue
		}
		r := consensus.RowOf(dec)
		r.ItemID, r.QueryID = it.ID, it.QueryID
		rows = append(rows, r)
	}
	return rows
}

// OperatorsOf lists the operators of a query expression in JSON (AND, OR,
// NOT, in that order; ATOM for a lone constraint); nil when there is no
// readable expression.
func OperatorsOf(raw json.RawMessage) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var e boolexpr.Expr
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil
	}
	seen := map[boolexpr.Op]bool{}
	var walk func(n *boolexpr.Expr)
	walk = func(n *boolexpr.Expr) {
		if n == nil {
			return
		}
		seen[n.Op] = true
		for _, a := range n.Args {
			walk(a)
		}
	}
	walk(&e)
	var out []string
	for _, op := range []boolexpr.Op{boolexpr.OpAnd, boolexpr.OpOr, boolexpr.OpNot} {
		if seen[op] {
			out = append(out, string(op))
		}
	}
	if len(out) == 0 && seen[boolexpr.OpAtom] {
		out = append(out, string(boolexpr.OpAtom))
	}
	return out
}

// NevIRPairs lists the complete NevIR pairs among a project's queries (both
// queries present), in pair id order, by external ids: the NevIR importer
// tags both queries of a pair with its id (metadata nevir_pair) and names
// them "<id>-q1"/"<id>-q2" and their documents "<id>-doc1"/"<id>-doc2".
// The dashboard and `boolpool eval --project` both find pairs this way.
func NevIRPairs(qs []store.ProjectQuery) []metrics.NevIRPair {
	byID := map[string][2]bool{}
	for _, q := range qs {
		if q.NevIRPair == "" {
			continue
		}
		p := byID[q.NevIRPair]
		switch q.ExtID {
		case q.NevIRPair + "-q1":
			p[0] = true
		case q.NevIRPair + "-q2":
			p[1] = true
		}
		byID[q.NevIRPair] = p
	}
	ids := make([]string, 0, len(byID))
	for id, has := range byID {
		if has[0] && has[1] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]metrics.NevIRPair, 0, len(ids))
	for _, id := range ids {
		out = append(out, metrics.NevIRPair{Query1: id + "-q1", Query2: id + "-q2", Doc1: id + "-doc1", Doc2: id + "-doc2"})
	}
	return out
}
