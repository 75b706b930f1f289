package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"boolpool/encoders"
	"boolpool/server/apperr"
	"boolpool/server/atompool"
	"boolpool/server/embedjob"
	"boolpool/server/jobs"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/strictjson"
	"boolpool/server/vocab"
)

// JobKinds are the background job kinds of every job client (serve,
// worker, the tests): retrieve (dense methods with their encoder opened
// here), encode, index and pool, as their commands do them, cal-batch (a
// cal pool's next batch) and atoms-batch (an atoms pool's next
// batch of constraint items). New registers exactly these.
func JobKinds(st *store.Store, log *slog.Logger, opts Options) map[string]jobs.Kind {
	atoms := atompool.NewPools(st, log)
	return map[string]jobs.Kind{
		vocab.JobKindRetrieve: jobs.Retrieve(st, log, denseOpener(st, opts)),
		vocab.JobKindEncode:   encodeKind(st, log, opts),
		vocab.JobKindIndex:    jobs.Index(st, log),
		vocab.JobKindPool:     jobs.Pool(st, atoms, log),
		pooling.CALJobKind:    jobs.CALBatch(pooling.NewCALGrower(st, log)),
		pooling.AtomsJobKind:  jobs.AtomsBatch(atoms),
	}
}

// EncoderNames are the encoder names encode jobs accept (for the setup page).
func EncoderNames() []string { return append(encoders.Names(), encoders.LexicalName) }

// runtimeConfig is the ONNX Runtime configuration of the jobs' encoders.
func (o Options) runtimeConfig() encoders.Config {
	device := o.Device
	if device == "" {
		device = encoders.DeviceCPU
	}
	return encoders.Config{CacheDir: o.CacheDir, Device: device, NoSpin: true}
}

func (o Options) openRuntime(cfg encoders.Config) (*encoders.Runtime, error) {
	if o.OpenRuntime != nil {
		return o.OpenRuntime(cfg)
	}
	return OpenRuntime(cfg)
}

// denseOpener opens a dense encoder over a project's pgvector embeddings,
// as `boolpool retrieve --vectors pgvector` does.
func denseOpener(st *store.Store, opts Options) jobs.DenseOpener {
	return func(ctx context.Context, projectID int64, encoder string) (*retrieval.Dense, func(), error) {
		p, err := st.ProjectByID(ctx, projectID)
		if err != nil {
			return nil, nil, err
		}
		vectors, err := PgvectorIndex(ctx, st, p, encoder)
		if err != nil {
			return nil, nil, jobs.Permanent(notPrepared(err))
		}
		rt, err := opts.openRuntime(encoders.Config{CacheDir: opts.CacheDir})
		if err != nil {
			return nil, nil, jobs.Permanent(notPrepared(err))
		}
		enc, err := rt.Open(ctx, encoder)
		if err != nil {
			rt.Close()
			return nil, nil, jobs.Permanent(notPrepared(err))
		}
		closeAll := func() {
			enc.Close()
			rt.Close()
		}
		return &retrieval.Dense{Encoder: enc, Vectors: vectors}, closeAll, nil
	}
}

// encodeKind is the job kind of `boolpool encode`. Progress is documents
// (then query texts) encoded of those to encode.
// A retry resumes: the documents of batches already committed keep their
// vectors (as a second `boolpool encode` does), and a reset is done only by
// the attempt that starts the job.
func encodeKind(st *store.Store, log *slog.Logger, opts Options) jobs.Kind {
	return jobs.ParamsKind(jobs.QueueEncode, encodeParams, func(ctx context.Context, a jobs.Attempt, p EncodeParams) (any, error) {
		job, report := a.Job, a.Report
		opt := embedjob.Options{
			ProjectID: job.ProjectID, Batch: p.Batch, Queries: !p.SkipQueries, Reset: p.Reset && !a.Resumed, Log: log,
			AfterBatch:      func(done, total int) { report("encoding documents", done, total) },
			AfterQueryBatch: func(done, total int) { report("encoding query texts", done, total) },
		}
		report("loading the encoder", 0, 0)
		var rep embedjob.Report
		if p.Encoder == encoders.LexicalName {
			tok, err := encoders.LoadTokenizer(opts.CacheDir)
			if err != nil {
				return nil, jobs.Permanent(notPrepared(err))
			}
			rep, err = embedjob.Lexical(ctx, st, tok, opt)
			if err != nil {
				return nil, err
			}
			return rep, nil
		}
		rt, err := opts.openRuntime(opts.runtimeConfig())
		if err != nil {
			return nil, jobs.Permanent(notPrepared(err))
		}
		defer rt.Close()
		enc, err := rt.Open(ctx, p.Encoder)
		if err != nil {
			return nil, jobs.Permanent(notPrepared(err))
		}
		defer enc.Close()
		if rep, err = embedjob.Dense(ctx, st, enc, opt); err != nil {
			return nil, err
		}
		return rep, nil
	})
}

func encodeParams(raw json.RawMessage) (EncodeParams, error) {
	var p EncodeParams
	if err := strictjson.Params(raw, &p); err != nil {
		return p, err
	}
	known := EncoderNames()
	if !slices.Contains(known, p.Encoder) {
		return p, apperr.Invalidf("params.encoder", "must be one of %s", strings.Join(known, ", "))
	}
	if p.Batch == 0 {
		p.Batch = embedjob.DefaultBatch
	}
	if p.Batch < 1 || p.Batch > 4096 {
		return p, apperr.Invalidf("params.batch", "must be between 1 and 4096")
	}
	return p, nil
}

// notPrepared says plainly that the encoder files are missing.
func notPrepared(err error) error {
	if errors.Is(err, encoders.ErrNotInstalled) {
		return fmt.Errorf("the encoder models are not prepared on this server (run scripts/install-onnxruntime.sh, scripts/fetch-models.sh and 'boolpool model prepare'): %w", err)
	}
	return err
}

// EncodeParams are the parameters of an encode job (as `boolpool
// encode`): SkipQueries leaves query texts out, Reset embeds everything
// again, Batch defaults to 64.
type EncodeParams struct {
	Encoder     string `json:"encoder"`
	SkipQueries bool   `json:"skip_queries,omitempty"`
	Reset       bool   `json:"reset,omitempty"`
	Batch       int    `json:"batch,omitempty"`
}
