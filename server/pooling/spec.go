package pooling

import (
	"context"
	"fmt"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// Bounds of a pool spec.
const (
	MaxDepth = 1000 // pool depth, probe depth and Judged@k
	MaxName  = 200  // bytes of a pool name
)

// corpusAtoms reports whether spec is strategy atoms over the corpus's
// documents (not the runs').
func corpusAtoms(spec Spec) bool {
	return spec.Strategy == Atoms && spec.Atoms.Candidates == AtomsCandidatesCorpus
}

// Check validates spec against the project's stored runs and fills its
// defaults: the rules of every pool, whether `boolpool pool` or the pool
// builder asks (Create and Preview call it). A probe depth of 0 with
// probes is the pool depth; no Judged@k values means k = 10 and the depth.
// A sampled pool's depth is the end of its deepest rank stratum.
// Errors are apperr.Invalid naming the spec's field.
func Check(ctx context.Context, st *store.Store, projectID int64, spec Spec) (Spec, error) {
	spec.Name = strings.TrimSpace(spec.Name)
	if spec.Name == "" {
		return spec, apperr.Invalidf("name", "required")
	}
	if len(spec.Name) > MaxName {
		return spec, apperr.Invalidf("name", "longer than %d bytes", MaxName)
	}
	// Constraint items over the whole corpus need no runs (their
	// candidates are every document; chosen runs only get a Judged@k).
	if len(spec.Runs) == 0 && !corpusAtoms(spec) {
		return spec, apperr.Invalidf("runs", "choose at least one run")
	}
	stored, err := st.ListRuns(ctx, projectID)
	if err != nil {
		return spec, err
	}
	known := map[string]bool{}
	for _, r := range stored {
		known[r.Name] = true
	}
	seen := map[string]bool{}
	for i, r := range spec.Runs {
		if !known[r] {
			return spec, apperr.Invalidf(fmt.Sprintf("runs[%d]", i), "no run named %q in this project", r)
		}
		if seen[r] {
			return spec, apperr.Invalidf(fmt.Sprintf("runs[%d]", i), "run %q chosen twice", r)
		}
		seen[r] = true
	}
	// A sampled pool's depth is its deepest rank stratum (checkSample).
	if spec.Strategy != Sample && (spec.Depth < 1 || spec.Depth > MaxDepth) {
		return spec, apperr.Invalidf("depth", "must be between 1 and %d", MaxDepth)
	}
	switch spec.Strategy {
	case Depth, MTF, Bandit:
		spec.CAL = CALParams{}
		spec.Atoms = AtomsParams{}
		spec.Sample = nil
	case Atoms:
		spec.CAL = CALParams{}
		spec.Sample = nil
		if spec, err = checkAtoms(spec); err != nil {
			return spec, err
		}
	case CAL:
		spec.Sample = nil
		if spec, err = checkCAL(spec); err != nil {
			return spec, err
		}
	case Sample:
		spec.CAL = CALParams{}
		spec.Atoms = AtomsParams{}
		if spec, err = checkSample(spec); err != nil {
			return spec, err
		}
	default:
		return spec, apperr.Invalidf("strategy", "must be %s, %s, %s, %s, %s or %s", Depth, MTF, Bandit, CAL, Atoms, Sample)
	}
	if spec.ProbeDepth < 0 || spec.ProbeDepth > MaxDepth {
		return spec, apperr.Invalidf("probe_depth", "must be between 0 and %d", MaxDepth)
	}
	if spec.Probes && spec.ProbeDepth == 0 {
		spec.ProbeDepth = spec.Depth
	}
	for i, k := range spec.JudgedK {
		if k < 1 || k > MaxDepth {
			return spec, apperr.Invalidf(fmt.Sprintf("judged_k[%d]", i), "must be between 1 and %d", MaxDepth)
		}
	}
	if len(spec.JudgedK) == 0 {
		spec.JudgedK = []int{spec.Depth}
		if spec.Depth != 10 {
			spec.JudgedK = append([]int{10}, spec.Depth)
		}
	}
	return spec, nil
}
