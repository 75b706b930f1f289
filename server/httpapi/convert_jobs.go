package httpapi

import (
	"boolpool/api"
	"boolpool/server/jobs"
)

func toJobsPoolRequest(w api.PoolSpec) jobs.PoolRequest {
	return jobs.PoolRequest{Name: w.Name, Runs: w.Runs, Depth: w.Depth, Strategy: w.Strategy, Probes: w.Probes,
		ProbeDepth: w.ProbeDepth, Split: w.Split, JudgedK: w.JudgedK, RatersPerItem: w.RatersPerItem,
		CALBatch: w.CALBatch, CALStop: w.CALStop, CALMax: w.CALMax, CALSeedRuns: w.CALSeedRuns,
		AtomsBatch: w.AtomsBatch, AtomsMax: w.AtomsMax, AtomsCandidates: w.AtomsCandidates,
		Sample: convPtr(w.Sample, toJobsSampleSpec)}
}

func toAPISampleSpec(d jobs.SampleSpec) api.SampleSpec {
	return api.SampleSpec{Strata: convSlice(d.Strata, toAPISampleStratum),
		Corpus: convPtr(d.Corpus, toAPISampleCorpus), Budget: d.Budget, Seed: d.Seed, Proxy: d.Proxy}
}

func toJobsSampleSpec(w api.SampleSpec) jobs.SampleSpec {
	return jobs.SampleSpec{Strata: convSlice(w.Strata, toJobsSampleStratum),
		Corpus: convPtr(w.Corpus, toJobsSampleCorpus), Budget: w.Budget, Seed: w.Seed, Proxy: w.Proxy}
}

func toAPISampleStratum(d jobs.SampleStratum) api.SampleStratum  { return api.SampleStratum(d) }
func toJobsSampleStratum(w api.SampleStratum) jobs.SampleStratum { return jobs.SampleStratum(w) }
func toAPISampleCorpus(d jobs.SampleCorpus) api.SampleCorpus     { return api.SampleCorpus(d) }
func toJobsSampleCorpus(w api.SampleCorpus) jobs.SampleCorpus    { return jobs.SampleCorpus(w) }

func toAPIPoolPreview(d jobs.PoolPreview) api.PoolPreview {
	return api.PoolPreview{Name: d.Name, Strategy: d.Strategy, Depth: d.Depth, Items: d.Items,
		Composition: toAPIPoolComposition(d.Composition), JudgedAtK: d.JudgedAtK,
		Sample: convPtr(d.Sample, toAPISampleDrawn)}
}

func toAPIPoolComposition(d jobs.PoolComposition) api.PoolComposition {
	return api.PoolComposition{Queries: d.Queries, Items: d.Items, ProbeItems: d.ProbeItems, ProbeOnly: d.ProbeOnly,
		Runs: convSlice(d.Runs, toAPIPoolRunStats), Overlap: d.Overlap, FromRuns: d.FromRuns, FromCAL: d.FromCAL}
}

func toAPIPoolRunStats(d jobs.PoolRunStats) api.PoolRunStats { return api.PoolRunStats(d) }

func toAPISampleDrawn(d jobs.SampleDrawn) api.SampleDrawn {
	return api.SampleDrawn{Units: d.Units, New: d.New, JudgedBefore: d.JudgedBefore, Expected: d.Expected,
		Strata: convSlice(d.Strata, toAPISampleStratumSum), Drawn: toAPISampleSpec(d.Drawn)}
}

func toAPISampleStratumSum(d jobs.SampleStratumSum) api.SampleStratumSum {
	return api.SampleStratumSum(d)
}
