package httpapi

import (
	"boolpool/api"
	"boolpool/server/live"
	"encoding/json"
	"fmt"
	"strconv"
)

func toAPILiveSnapshot(d live.Snapshot) api.LiveSnapshot {
	return api.LiveSnapshot{Project: d.Project, Version: d.Version, At: d.At,
		Consensus: toAPIConsensusSummary(d.Consensus), Agreement: toAPIAgreementView(d.Agreement),
		Annotators:  convSlice(d.Annotators, toAPIAnnotatorView),
		Leaderboard: convSlice(d.Leaderboard, toAPIRunScores), Templates: convSlice(d.Templates, toAPIBreakdown),
		Operators: convSlice(d.Operators, toAPIBreakdown), Progress: toAPIPoolProgress(d.Progress),
		Contradictions: toAPIContradictionList(d.Contradictions), Composition: toAPICompositionView(d.Composition),
		Bootstrap: toAPIBootstrapParameters(d.Bootstrap), Quality: toAPIQualityView(d.Quality)}
}

func toAPIBreakdown(d live.Breakdown) api.Breakdown {
	return api.Breakdown{Label: d.Label, Queries: d.Queries, Runs: convSlice(d.Runs, toAPIBreakdownRun)}
}

func toAPIRunScores(d live.RunScores) api.RunScores {
	return api.RunScores{Run: d.Run, Queries: d.Queries, Scores: convSlice(d.Scores, toAPIMetricScore)}
}

func toAPIQueryProgress(d live.QueryProgress) api.QueryProgress    { return api.QueryProgress(d) }
func toAPIAnnotatorView(d live.AnnotatorView) api.AnnotatorView    { return api.AnnotatorView(d) }
func toAPIRelevantFound(d live.RelevantFound) api.RelevantFound    { return api.RelevantFound(d) }
func toAPIMetricScore(d live.MetricScore) api.MetricScore          { return api.MetricScore(d) }
func toAPIRunProgress(d live.RunProgress) api.RunProgress          { return api.RunProgress(d) }
func toAPIRunComposition(d live.RunComposition) api.RunComposition { return api.RunComposition(d) }

func toAPIPoolProgress(d live.PoolProgress) api.PoolProgress {
	return api.PoolProgress{Items: d.Items, Judged: d.Judged, Remaining: d.Remaining, QueriesTotal: d.QueriesTotal,
		QueriesComplete: d.QueriesComplete, Queries: convSlice(d.Queries, toAPIQueryProgress),
		Runs: convSlice(d.Runs, toAPIRunProgress)}
}

func toAPIContradictionView(d live.ContradictionView) api.ContradictionView {
	return api.ContradictionView(d)
}

func toAPIContradictionList(d live.ContradictionList) api.ContradictionList {
	return api.ContradictionList{Total: d.Total, Items: convSlice(d.Items, toAPIContradictionView)}
}

func toAPICompositionView(d live.CompositionView) api.CompositionView {
	return api.CompositionView{Runs: convSlice(d.Runs, toAPIRunComposition), Overlap: d.Overlap,
		PoolOverlap: d.PoolOverlap}
}

func toAPIAgreementView(d live.AgreementView) api.AgreementView { return api.AgreementView(d) }
func toAPIConsensusSummary(d live.ConsensusSummary) api.ConsensusSummary {
	return api.ConsensusSummary(d)
}
func toAPIBreakdownRun(d live.BreakdownRun) api.BreakdownRun { return api.BreakdownRun(d) }
func toAPIBootstrapParameters(d live.BootstrapParameters) api.BootstrapParameters {
	return api.BootstrapParameters(d)
}

func toAPIQualityView(d live.QualityView) api.QualityView {
	return api.QualityView{Settings: toAPIQualitySettings(d.Settings), Flagged: d.Flagged, DSItems: d.DSItems,
		DSIterations: d.DSIterations, DSConverged: d.DSConverged, DSPrior: d.DSPrior, DSDisagree: d.DSDisagree}
}

func toAPIQualitySettings(d live.QualitySettings) api.QualitySettings { return api.QualitySettings(d) }

// snapshotEvent formats a dashboard snapshot as one server-sent event.
func snapshotEvent(snap live.Snapshot) ([]byte, error) {
	data, err := json.Marshal(toAPILiveSnapshot(snap))
	if err != nil {
		return nil, fmt.Errorf("live: encode snapshot: %w", err)
	}
	b := make([]byte, 0, len(data)+64)
	b = append(b, "event: snapshot\nid: "...)
	b = strconv.AppendUint(b, snap.Version, 10)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}
