package pooling

import "boolpool/server/apperr"

// Atoms is the live constraint-pooling strategy (issue 13): the pool
// publishes constraint items — (atom, document) pairs asked once and
// shared by every query using the atom — in batches that server/atompool
// chooses from the runs' top Depth documents and the labels so far; the
// next batch once the current one is labelled (a River job, AtomsJobKind).
const Atoms = "atoms"

// AtomsJobKind is the job kind that adds a live atoms pool's next batch.
const AtomsJobKind = "atoms-batch"

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
}

// checkAtoms fills the defaults of an atoms spec and checks its bounds.
func checkAtoms(spec Spec) (Spec, error) {
	p := &spec.Atoms
	if spec.Probes {
		return spec, apperr.Invalidf("probes", "logic probes do not apply to strategy atoms")
	}
	if p.Batch == 0 {
		p.Batch = DefaultAtomsBatch
	}
	if p.Batch < 1 || p.Batch > MaxAtomsBatch {
		return spec, apperr.Invalidf("atoms.batch", "must be between 1 and %d", MaxAtomsBatch)
	}
	if p.Max == 0 {
		p.Max = DefaultAtomsMax
	}
	if p.Max < 1 || p.Max > MaxAtomsMax {
		return spec, apperr.Invalidf("atoms.max", "must be between 1 and %d", MaxAtomsMax)
	}
	return spec, nil
}
