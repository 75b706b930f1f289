package consensus

import (
	"context"
	"encoding/json"
	"fmt"

	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Constraint consensus (issue 13): the current yes / no / unsure votes of a
// constraint item decide its (atom, document) label, which the derived
// qrels of every query using the atom read (atom_labels, source
// 'consensus').

var _ judging.ConstraintObserver = (*Service)(nil)

// DecideConstraint is the majority of constraint votes: the answer of
// more than half of the votes, else unsure (a split vote decides nothing);
// ok is false without votes.
func DecideConstraint(votes []string) (label string, ok bool) {
	if len(votes) == 0 {
		return "", false
	}
	counts := map[string]int{}
	for _, v := range votes {
		counts[v]++
	}
	for _, l := range []string{vocab.SatisfiedYes, vocab.SatisfiedNo, vocab.SatisfiedUnsure} {
		if 2*counts[l] > len(votes) {
			return l, true
		}
	}
	return vocab.SatisfiedUnsure, true
}

// ConstraintJudged implements judging.ConstraintObserver: it recomputes
// the item's label at once (one small statement; the rater's next task
// does not wait on a queue) and tells the listeners registered with
// AddConstraintListener. Failures are logged: the judgment is stored, and
// SyncConstraints (the derived endpoint and the exports call it) repairs.
func (s *Service) ConstraintJudged(ctx context.Context, projectID, itemID int64) {
	mu := s.itemLock(itemID)
	mu.Lock()
	defer mu.Unlock()
	changed, err := RefreshConstraint(ctx, s.st, itemID)
	if err != nil {
		s.log.Error("constraint consensus", "project", projectID, "item", itemID, "err", err)
		return
	}
	if !changed {
		return
	}
	s.listenMu.RLock()
	ls := s.constraint
	s.listenMu.RUnlock()
	for _, l := range ls {
		l.AtomLabelChanged(ctx, projectID, itemID)
	}
}

// ConstraintListener is told when a constraint item's consensus changed
// an atom label.
type ConstraintListener interface {
	AtomLabelChanged(ctx context.Context, projectID, itemID int64)
}

// RefreshConstraint recomputes one constraint item's label from its
// current judgments and stores it; changed reports a new label.
func RefreshConstraint(ctx context.Context, st *store.Store, itemID int64) (bool, error) {
	js, err := st.CurrentJudgments(ctx, itemID)
	if err != nil {
		return false, err
	}
	votes, err := constraintVotes(js)
	if err != nil {
		return false, err
	}
	label, _ := DecideConstraint(votes)
	return st.SetConstraintLabel(ctx, itemID, label)
}

func constraintVotes(js []store.Judgment) ([]string, error) {
	var out []string
	for _, j := range js {
		if j.Kind != vocab.KindConstraint || j.SkipReason != "" {
			continue
		}
		var a judging.ConstraintAnswer
		if err := json.Unmarshal(j.Payload, &a); err != nil {
			return nil, fmt.Errorf("consensus: constraint judgment %d: %w", j.ID, err)
		}
		out = append(out, a.Satisfied)
	}
	return out, nil
}

// SyncConstraints recomputes every constraint item's label of a project
// from the stored judgments (a lost refresh is repaired here) and returns
// how many labels changed.
func SyncConstraints(ctx context.Context, st *store.Store, projectID int64) (int, error) {
	votes, err := st.ConstraintVotes(ctx, projectID)
	if err != nil {
		return 0, err
	}
	changed := 0
	for id, vs := range votes {
		label, _ := DecideConstraint(vs)
		c, err := st.SetConstraintLabel(ctx, id, label)
		if err != nil {
			return changed, err
		}
		if c {
			changed++
		}
	}
	return changed, nil
}
