package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/strictjson"
)

// DefaultDenseEncoder is the encoder of dense methods when a retrieve job
// names none (as `boolpool retrieve`).
const DefaultDenseEncoder = "minilm-static"

// DenseOpener opens a dense encoder over a project's stored vectors for
// dense methods; close releases it. It lives with the encoders (cgo), so
// the serve command supplies it.
type DenseOpener func(ctx context.Context, projectID int64, encoder string) (dense *retrieval.Dense, close func(), err error)

// Retrieve is the job kind of `boolpool retrieve`: one retrieval method
// over a project's queries, stored as a run. Progress is queries done of
// the project's queries. openDense may be nil: dense methods are then
// refused when the job is submitted.
func Retrieve(st *store.Store, log *slog.Logger, openDense DenseOpener) Kind {
	parse := func(raw json.RawMessage) (RetrieveParams, error) { return retrieveParams(raw, openDense != nil) }
	return ParamsKind(QueueDefault, parse, func(ctx context.Context, a Attempt, p RetrieveParams) (any, error) {
		job, report := a.Job, a.Report
		res := &retrieval.Resources{Store: st, ProjectID: job.ProjectID, Log: log}
		if proj, err := st.ProjectByID(ctx, job.ProjectID); err == nil {
			res.ProjectName = proj.Name
		}
		var closers []func()
		defer func() {
			for _, c := range closers {
				c()
			}
		}()
		spec, _ := retrieval.SpecByName(p.Method)
		var record map[string]string
		if spec.Needs == retrieval.NeedsDense {
			record = map[string]string{"encoder": p.Encoder, "vectors": "pgvector"}
			res.OpenDense = func(ctx context.Context) (*retrieval.Dense, error) {
				d, c, err := openDense(ctx, job.ProjectID, p.Encoder)
				if c != nil {
					closers = append(closers, c)
				}
				return d, err
			}
		}
		report("loading "+string(spec.Needs)+" resources", 0, 0)
		sum, _, _, err := retrieval.RunProject(ctx, res, retrieval.RunRequest{
			Method: p.Method, Params: p.Params, Split: p.Split, Depth: p.Depth, Name: p.Name,
			Workers: runtime.GOMAXPROCS(0), Record: record,
			Progress: func(done, total int) { report("retrieving", done, total) },
		}, nil)
		if err != nil {
			return nil, err
		}
		if len(sum.Warnings) > 0 {
			// The job's last phase carries the warnings too, so a status
			// poll shows them next to the result.
			report("done with warnings: "+strings.Join(sum.Warnings, "; "), sum.Queries, sum.Queries)
		}
		return sum, nil
	})
}

// retrieveParams decodes and checks a retrieve job's parameters, filling
// defaults.
func retrieveParams(raw json.RawMessage, dense bool) (RetrieveParams, error) {
	var p RetrieveParams
	if err := strictJSON(raw, &p); err != nil {
		return p, err
	}
	spec, ok := retrieval.SpecByName(p.Method)
	if !ok {
		return p, apperr.Invalidf("params.method", "unknown retrieval method %q", p.Method)
	}
	if _, err := retrieval.ResolveParams(p.Method, p.Params); err != nil {
		return p, apperr.Invalidf("params.params", "%v", err)
	}
	if spec.Needs == retrieval.NeedsDense && !dense {
		return p, apperr.Invalidf("params.method", "%s is a dense method, and this server was started without encoders", p.Method)
	}
	if p.Depth == 0 {
		p.Depth = 1000
	}
	if p.Depth < 1 || p.Depth > 10000 {
		return p, apperr.Invalidf("params.depth", "must be between 1 and 10000")
	}
	if p.Encoder == "" {
		p.Encoder = DefaultDenseEncoder
	}
	if len(p.Name) > 200 {
		return p, apperr.Invalidf("params.name", "at most 200 characters")
	}
	return p, nil
}

// strictJSON decodes a job's parameters, refusing unknown fields (a typo
// should not silently run with defaults): server/strictjson.
func strictJSON(raw json.RawMessage, v any) error { return strictjson.Params(raw, v) }
