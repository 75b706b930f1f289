// Package atomsim is the research side of constraint pooling (issue 13):
// simulations that judge with an oracle instead of people, for `boolpool
// pool simulate --strategies atoms,atoms-pools,cal-full,cal-bound` and the
// atoms benchmark suite. SimulateAtoms pools (atom, document) pairs over
// the runs' pools; SimulateAtomsCAL over the whole corpus with one active
// learner per atom (atompool.Learners, the learners live pools use);
// SimulateQueryLevel, SimulateQueryLevelCAL and QueryLevelHindsight are the
// query-level baselines and bound; SimulateProject and SimulateProjectCAL
// load a stored project's input.
//
// Nothing on the serving path imports it: live constraint pools are
// server/atompool.
package atomsim
