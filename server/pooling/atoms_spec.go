package pooling

import (
	"boolpool/server/apperr"

	"boolpool/server/vocab"
)

// Atoms is the constraint-pooling strategy (issue 13): the pool
// publishes constraint items — (atom, document) pairs asked once and
// shared by every query using the atom — in batches that server/atompool
// chooses from the runs' top Depth documents and the labels so far; the
// next batch once the current one is labelled (a River job, AtomsJobKind).
const Atoms = vocab.StrategyAtoms

// AtomsJobKind is the job kind that adds a atoms pool's next batch.
const AtomsJobKind = vocab.JobKindAtomsBatch

// Atoms pool defaults and bounds.
const (
	DefaultAtomsBatch = 50
	MaxAtomsBatch     = 10000
	DefaultAtomsMax   = 100000
	MaxAtomsMax       = 1000000
)

// AtomsParams configure an atoms pool (Spec.Atoms).
type AtomsParams struct {
	Batch int `json:"batch"` // constraint items per batch (default 50)
	Max   int `json:"max"`   // constraint items of the pool at most (default 100000)
	// Candidates is where a batch's documents come from:
	// AtomsCandidatesRuns (default) or AtomsCandidatesCorpus.
	Candidates string `json:"candidates,omitempty"`
}

// Where an atoms pool's candidates come from.
const (
	// AtomsCandidatesRuns: the runs' top Depth documents and documents
	// known to satisfy one of the query's positive atoms.
	AtomsCandidatesRuns = "runs"
	// AtomsCandidatesCorpus: every document of the corpus, ranked by an
	// active learner per atom (server/atompool NextBatchCorpus; the
	// simulation's strategy atoms).
	AtomsCandidatesCorpus = "corpus"
)

// checkAtoms fills the defaults of an atoms spec and checks its bounds.
func checkAtoms(spec Spec) (Spec, error) {
	p := &spec.Atoms
	if spec.Probes {
		return spec, apperr.Invalidf("probes", "logic probes do not apply to strategy atoms")
	}
	if err := defaultBounded(&p.Batch, "atoms.batch", DefaultAtomsBatch, MaxAtomsBatch); err != nil {
		return spec, err
	}
	if err := defaultBounded(&p.Max, "atoms.max", DefaultAtomsMax, MaxAtomsMax); err != nil {
		return spec, err
	}
	switch p.Candidates {
	case "":
		p.Candidates = AtomsCandidatesRuns
	case AtomsCandidatesRuns, AtomsCandidatesCorpus:
	default:
		return spec, apperr.Invalidf("atoms.candidates", "must be %s or %s", AtomsCandidatesRuns, AtomsCandidatesCorpus)
	}
	return spec, nil
}

// defaultBounded sets *v to def when it is 0 and checks that it is
// between 1 and hi (field names the spec field in the error).
func defaultBounded(v *int, field string, def, hi int) error {
	if *v == 0 {
		*v = def
	}
	if *v < 1 || *v > hi {
		return apperr.Invalidf(field, "must be between 1 and %d", hi)
	}
	return nil
}
