// Package consensus turns the raters' judgments of a relevance item into
// one graded label (the consensus qrel) and decides which items a
// researcher must adjudicate. It owns the stored consensus (Service): the
// per-item refresh after each judgment (it is judging's Observer) and
// adjudication, the project sync that repairs lost refreshes (Current,
// which exports call), and the listeners (live dashboards) it tells.
//
// The rules (Decide), over the latest non-skipped judgment of each rater:
//
//   - Binarise: relevant = label >= 2 (likely or definitely relevant).
//   - The binary verdict is the majority of the binarised votes.
//   - The graded value is the LOWER median of the labels (the middle label
//     for an odd count, the smaller of the two middle labels for an even
//     count). Because more than half of the votes lie on the majority
//     side, the lower median always agrees with the binary majority.
//   - Tie rule: when as many raters say relevant as not, the lower median
//     is provisionally used (it is <= 1, i.e. not relevant: a tie never
//     adds a relevant document on its own) and the item needs
//     adjudication.
//   - An item needs adjudication when its binarised votes are not
//     unanimous (any disagreement, ties included) or any current judgment
//     carries the constraint-contradiction flag.
//   - An adjudication decision overrides everything: its relevance is the
//     consensus and the item leaves the queue (a later judgment does not
//     reopen it; a later adjudication replaces it).
package consensus

import "sort"

// RelevantThreshold is the lowest label counted as relevant.
const RelevantThreshold = 2

// Status values of a decision.
const (
	StatusUnanimous   = "unanimous"
	StatusMajority    = "majority"
	StatusTie         = "tie"
	StatusAdjudicated = "adjudicated"
)

// Vote is one rater's current judgment of an item.
type Vote struct {
	Rater         int64
	Label         int // 0–3
	Contradiction bool
}

// Decision is the consensus of one item.
type Decision struct {
	Relevance         int // graded 0–3
	Status            string
	Votes             int
	RelevantVotes     int
	Contradictions    int
	NeedsAdjudication bool
}

// Relevant reports whether the consensus label counts as relevant.
func (d Decision) Relevant() bool { return d.Relevance >= RelevantThreshold }

// Decide applies the package rules. adjudicated, when not nil, is the
// latest adjudication's relevance. ok is false when there is nothing to
// decide (no votes and no adjudication).
func Decide(votes []Vote, adjudicated *int) (d Decision, ok bool) {
	labels := make([]int, 0, len(votes))
	for _, v := range votes {
		labels = append(labels, v.Label)
		if v.Label >= RelevantThreshold {
			d.RelevantVotes++
		}
		if v.Contradiction {
			d.Contradictions++
		}
	}
	d.Votes = len(votes)
	if adjudicated != nil {
		d.Relevance, d.Status = *adjudicated, StatusAdjudicated
		return d, true
	}
	if d.Votes == 0 {
		return d, false
	}
	sort.Ints(labels)
	d.Relevance = labels[(len(labels)-1)/2]
	against := d.Votes - d.RelevantVotes
	switch {
	case d.RelevantVotes == 0 || against == 0:
		d.Status = StatusUnanimous
	case d.RelevantVotes == against:
		d.Status = StatusTie
	default:
		d.Status = StatusMajority
	}
	d.NeedsAdjudication = d.Status != StatusUnanimous || d.Contradictions > 0
	return d, true
}
