package consensus

import "testing"

func votes(labels ...int) []Vote {
	out := make([]Vote, len(labels))
	for i, l := range labels {
		out[i] = Vote{Rater: int64(i + 1), Label: l}
	}
	return out
}

func TestDecide(t *testing.T) {
	two, zero := 2, 0
	contradicted := votes(3, 3, 2)
	contradicted[1].Contradiction = true
	tests := []struct {
		name  string
		votes []Vote
		adj   *int
		want  Decision
		ok    bool
	}{
		{"no votes", nil, nil, Decision{}, false},
		{"single relevant vote", votes(3), nil, Decision{Relevance: 3, Status: StatusUnanimous, Votes: 1, RelevantVotes: 1}, true},
		// sorted 2,3,3: median 3; all relevant after binarising.
		{"unanimous relevant, graded median", votes(3, 2, 3), nil, Decision{Relevance: 3, Status: StatusUnanimous, Votes: 3, RelevantVotes: 3}, true},
		// sorted 0,1,1: median 1; unanimous not relevant although grades differ.
		{"unanimous not relevant", votes(1, 0, 1), nil, Decision{Relevance: 1, Status: StatusUnanimous, Votes: 3}, true},
		// sorted 0,2,3: median 2 (relevant), 2 of 3 relevant.
		{"majority relevant", votes(3, 0, 2), nil, Decision{Relevance: 2, Status: StatusMajority, Votes: 3, RelevantVotes: 2, NeedsAdjudication: true}, true},
		// sorted 1,1,3: median 1.
		{"majority not relevant", votes(1, 3, 1), nil, Decision{Relevance: 1, Status: StatusMajority, Votes: 3, RelevantVotes: 1, NeedsAdjudication: true}, true},
		// sorted 1,3: lower median 1 → provisionally not relevant.
		{"tie of two", votes(3, 1), nil, Decision{Relevance: 1, Status: StatusTie, Votes: 2, RelevantVotes: 1, NeedsAdjudication: true}, true},
		// sorted 0,1,2,3: lower median 1.
		{"tie of four", votes(2, 0, 3, 1), nil, Decision{Relevance: 1, Status: StatusTie, Votes: 4, RelevantVotes: 2, NeedsAdjudication: true}, true},
		// sorted 0,2,2,3: lower median 2, 3 of 4 relevant.
		{"even count majority", votes(2, 3, 0, 2), nil, Decision{Relevance: 2, Status: StatusMajority, Votes: 4, RelevantVotes: 3, NeedsAdjudication: true}, true},
		// sorted 2,3: lower median 2.
		{"even count unanimous takes lower median", votes(3, 2), nil, Decision{Relevance: 2, Status: StatusUnanimous, Votes: 2, RelevantVotes: 2}, true},
		{"contradiction queues a unanimous item", contradicted, nil, Decision{Relevance: 3, Status: StatusUnanimous, Votes: 3, RelevantVotes: 3, Contradictions: 1, NeedsAdjudication: true}, true},
		{"adjudication overrides a tie", votes(3, 1), &two, Decision{Relevance: 2, Status: StatusAdjudicated, Votes: 2, RelevantVotes: 1}, true},
		{"adjudication overrides a unanimous vote", votes(3, 3, 3), &zero, Decision{Relevance: 0, Status: StatusAdjudicated, Votes: 3, RelevantVotes: 3}, true},
		{"adjudication clears a contradiction", contradicted, &two, Decision{Relevance: 2, Status: StatusAdjudicated, Votes: 3, RelevantVotes: 3, Contradictions: 1}, true},
		{"adjudication without votes", nil, &two, Decision{Relevance: 2, Status: StatusAdjudicated}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Decide(tt.votes, tt.adj)
			if ok != tt.ok || got != tt.want {
				t.Errorf("Decide = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
			if ok && got.Status != StatusAdjudicated && got.Relevant() != (got.RelevantVotes*2 > got.Votes) {
				t.Errorf("graded value %d disagrees with the binary majority %d/%d", got.Relevance, got.RelevantVotes, got.Votes)
			}
		})
	}
}
