package live

import (
	"math"
	"sort"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/store"
)

// Quality control on the dashboard: each annotator's gold record against
// the project's gold check (flagged, and paused when the project pauses),
// and Dawid–Skene estimates of each annotator's reliability over the
// current votes (consensus.DawidSkene, gold answers and adjudications as
// known labels). The incremental State and Recompute share qualityOf, so
// the two agree.

// DSCost bounds the share of time spent in Dawid–Skene runs: after a run
// that took t, the next waits at least DSCost·t (the EM passes over every
// judged item, unlike the other figures, which are kept incrementally);
// snapshots in between reuse the last run. A 2 ms run on a small project
// allows a new one every 40 ms, a 100 ms run one every 2 s.
const DSCost = 20

// dsInput is one judged item as the EM sees it.
type dsInput struct {
	votes    []consensus.Vote // sorted by rater
	known    *bool            // gold answer or adjudication, binarised
	adjudged bool
	majority bool // the majority verdict (Decide)
}

// dsRun is a Dawid–Skene run over a project's judged items.
type dsRun struct {
	res      consensus.DSResult
	items    int
	disagree int
}

// runDS runs the EM over items (in the order given: callers sort by item id).
func runDS(items []dsInput) dsRun {
	in := make([]consensus.DSItem, len(items))
	for i, it := range items {
		in[i] = consensus.DSItem{Votes: it.votes, Known: it.known}
	}
	out := dsRun{res: consensus.DawidSkene(in, consensus.DSOptions{}), items: len(items)}
	for i, it := range items {
		if !it.adjudged && out.res.Relevant(i) != it.majority {
			out.disagree++
		}
	}
	return out
}

// knownOf is an item's known binary label: an adjudication, else a gold
// answer (gold < 0 = none).
func knownOf(adj *int, gold int) *bool {
	var k bool
	switch {
	case adj != nil:
		k = *adj >= MinRel
	case gold >= 0:
		k = gold >= MinRel
	default:
		return nil
	}
	return &k
}

// qualityOf fills the annotators' quality columns in place and returns
// the dashboard's quality panel.
func qualityOf(q store.QualitySettings, annotators []AnnotatorView, ds dsRun) QualityView {
	v := QualityView{Settings: QualitySettings(q), DSItems: ds.items, DSIterations: ds.res.Iterations,
		DSConverged: ds.res.Converged, DSDisagree: ds.disagree}
	if ds.items > 0 {
		v.DSPrior = num(ds.res.Prior)
	}
	for i := range annotators {
		a := &annotators[i]
		if store.BelowGold(q, store.GoldRecord{Judged: a.GoldItems, Correct: a.GoldCorrect}) {
			a.Flagged, a.Paused = true, q.GoldPause
			v.Flagged++
		}
		if r, ok := ds.res.Rater(a.UserID); ok && r.Labels > 0 {
			a.DSAccuracy, a.DSSensitivity, a.DSSpecificity = num(r.Accuracy), num(r.Sensitivity), num(r.Specificity)
		}
	}
	return v
}

// correctOf turns a binary gold accuracy share back into a count.
func correctOf(share float64, n int) int { return int(math.Round(share * float64(n))) }

// SetQuality replaces the state's quality settings.
func (s *State) SetQuality(q store.QualitySettings) {
	s.quality = q
	s.version++
}

// SetDSEvery fixes the least time between two Dawid–Skene runs (0 = at
// every snapshot after a change) instead of the DSCost rule; for tests
// that compare snapshots with Recompute.
func (s *State) SetDSEvery(d time.Duration) { s.dsEvery = d }

// dawidSkene returns the current run, re-running the EM when the votes
// changed since the last run and the gap has passed.
func (s *State) dawidSkene() dsRun {
	gap := s.dsEvery
	if gap < 0 {
		gap = DSCost * s.dsTook
	}
	if s.dsAt.IsZero() || (s.dsVersion != s.version && time.Since(s.dsAt) >= gap) {
		start := time.Now()
		ids := make([]int64, 0, len(s.items))
		for id, it := range s.items {
			if len(it.votes) > 0 {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		in := make([]dsInput, len(ids))
		for i, id := range ids {
			it := s.items[id]
			in[i] = dsInput{votes: it.votes, known: knownOf(it.adj, it.gold), adjudged: it.adj != nil, majority: it.dec.Relevant()}
		}
		s.ds, s.dsVersion = runDS(in), s.version
		s.dsAt = time.Now()
		s.dsTook = s.dsAt.Sub(start)
	}
	return s.ds
}

// QualityChanged applies new quality settings to a loaded project's state
// and publishes it. A project still loading is dropped, so that the next
// request loads it with the new settings.
func (s *Service) QualityChanged(projectID int64, q store.QualitySettings) {
	s.mu.Lock()
	p := s.projects[projectID]
	s.mu.Unlock()
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		s.detach(projectID, p)
		return
	}
	p.state.SetQuality(q)
	s.schedulePublish(projectID, p)
}
