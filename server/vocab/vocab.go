// Package vocab defines, once, the words the server, the store and the
// wire contract (api) share: roles, task kinds, job kinds and states,
// pooling strategies, consensus methods, evidence values, satisfied labels
// and qrels sources. It imports
// nothing, so every layer may use it: server/store uses it instead of the
// wire types, and api re-exports the words on the wire under its own
// names (api.RoleAdmin = vocab.RoleAdmin). internal/archtest checks that
// each word has one const definition in the module, here.
package vocab

// Roles, from least to most privileged (users.role).
const (
	RoleAnnotator  = "annotator"
	RoleResearcher = "researcher"
	RoleAdmin      = "admin"
)

// Task kinds (items.kind), in the order people see them.
const (
	KindRelevance  = "relevance"
	KindConstraint = "constraint" // does a document satisfy one atom? (issue 13)
	KindParaphrase = "paraphrase"
	KindValidation = "validation"
)

// TaskKinds lists the task kinds in the order people see them.
func TaskKinds() []string {
	return []string{KindRelevance, KindConstraint, KindParaphrase, KindValidation}
}

// Evidence values of a relevance judgment.
const (
	EvidenceComplete = "complete"
	EvidencePartial  = "partial"
	EvidenceNone     = "none"
)

// Per-atom satisfied labels of a constraint judgment.
const (
	SatisfiedYes    = "yes"
	SatisfiedNo     = "no"
	SatisfiedUnsure = "unsure"
)

// Qrels sources: where a qrel's label comes from, and the qrels mode of a
// derived-qrels export or summary.
const (
	QrelsDirect  = "direct"  // from a judgment of the whole (query, document)
	QrelsDerived = "derived" // from the atoms' labels
	QrelsBoth    = "both"    // both known and they agree
)

// Job kinds (jobs.kind); server/app registers a runner for each.
const (
	JobKindRetrieve   = "retrieve"
	JobKindEncode     = "encode"
	JobKindIndex      = "index"
	JobKindPool       = "pool"        // params: api.PoolSpec (with a name); result: api.PoolPublished
	JobKindCALBatch   = "cal-batch"   // grows a live cal pool's query by one batch
	JobKindAtomsBatch = "atoms-batch" // adds a live atoms pool's next batch
)

// Job states (jobs.state): the job runner writes them, the setup page
// shows them.
const (
	JobQueued      = "queued"
	JobRunning     = "running"
	JobDone        = "done"
	JobFailed      = "failed"
	JobInterrupted = "interrupted"
	JobCancelled   = "cancelled"
)

// JobFinished reports whether a job state is final (neither queued nor
// running).
func JobFinished(state string) bool { return state != JobQueued && state != JobRunning }

// Consensus methods of qrels exports (?consensus= and --consensus).
const (
	ConsensusMajority   = "majority"
	ConsensusDawidSkene = "dawid-skene"
)
