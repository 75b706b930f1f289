package httpapi

import (
	"boolpool/api"
	"boolpool/server/reuse"
)

func toAPIReusability(d reuse.ReusabilityReport) api.Reusability {
	return api.Reusability{Pool: d.Pool, Queries: d.Queries, Measures: d.Measures,
		Runs: convSlice(d.Runs, toAPIReuseRun), LeaveOneRun: convSlice(d.LeaveOneRun, toAPILeaveOut),
		LeaveOneFamily: convSlice(d.LeaveOneFamily, toAPILeaveOut), MaxAbsChange: d.MaxAbsChange,
		MaxAbsChangeFamily: d.MaxAbsChangeFamily}
}

func toAPIStability(d reuse.StabilityReport) api.Stability {
	return api.Stability{Pool: d.Pool, Queries: d.Queries, Measures: d.Measures, Runs: d.Runs,
		Consensus:  toAPIConsensusStability(d.Consensus),
		Annotators: convSlice(d.Annotators, toAPIAnnotatorStability),
		Bootstrap:  toAPIBootstrapStability(d.Bootstrap)}
}

func toAPIRankCorr(d reuse.RankCorr) api.RankCorr { return api.RankCorr(d) }

func toAPILeaveOut(d reuse.LeaveOut) api.LeaveOut {
	return api.LeaveOut{LeftOut: d.LeftOut, Runs: d.Runs, Removed: d.Removed, RemovedRelevant: d.RemovedRelevant,
		JudgedAt10: d.JudgedAt10, Measures: convMap(d.Measures, toAPILeaveOutMeasure)}
}

func toAPIRunChange(d reuse.RunChange) api.RunChange { return api.RunChange(d) }

func toAPILeaveOutMeasure(d reuse.LeaveOutMeasure) api.LeaveOutMeasure {
	return api.LeaveOutMeasure{KendallTau: d.KendallTau, TauAP: d.TauAP, Runs: convSlice(d.Runs, toAPIRunChange)}
}

func toAPIReuseRun(d reuse.ReuseRun) api.ReuseRun             { return api.ReuseRun(d) }
func toAPIBootstrapTau(d reuse.BootstrapTau) api.BootstrapTau { return api.BootstrapTau(d) }

func toAPIAnnotatorStability(d reuse.AnnotatorStability) api.AnnotatorStability {
	return api.AnnotatorStability{Annotator: d.Annotator, Judgments: d.Judgments, Queries: d.Queries,
		Measures: convMap(d.Measures, toAPIRankCorr)}
}

func toAPIConsensusStability(d reuse.ConsensusStability) api.ConsensusStability {
	return api.ConsensusStability{Items: d.Items, Differ: d.Differ, Measures: convMap(d.Measures, toAPIRankCorr)}
}

func toAPIBootstrapStability(d reuse.BootstrapStability) api.BootstrapStability {
	return api.BootstrapStability{Resamples: d.Resamples, Seed: d.Seed,
		Measures: convMap(d.Measures, toAPIBootstrapTau)}
}
