package httpapi

import (
	"boolpool/api"
	"boolpool/server/atompool"
)

func toAPIDerivedQuery(d atompool.DerivedQuery) api.DerivedQuery { return api.DerivedQuery(d) }

func toAPIDerivedQrels(d atompool.DerivedQrels) api.DerivedQrels {
	return api.DerivedQrels{Atoms: d.Atoms, AtomLabels: d.AtomLabels, Constraint: toAPIConstraintCounts(d.Constraint),
		Queries: convSlice(d.Queries, toAPIDerivedQuery), Flags: convSlice(d.Flags, toAPIConsistencyFlag),
		Relevant: d.Relevant, NonRelevant: d.NonRelevant, Unknown: d.Unknown}
}

func toAPIConstraintPoolResult(d atompool.ConstraintPoolResult) api.ConstraintPoolResult {
	return api.ConstraintPoolResult(d)
}

func toAPIConstraintCounts(d atompool.ConstraintCounts) api.ConstraintCounts {
	return api.ConstraintCounts(d)
}
func toAPIConsistencyFlag(d atompool.ConsistencyFlag) api.ConsistencyFlag {
	return api.ConsistencyFlag(d)
}

func toAtompoolConstraintPoolRequest(w api.ConstraintPoolRequest) atompool.ConstraintPoolRequest {
	return atompool.ConstraintPoolRequest(w)
}
