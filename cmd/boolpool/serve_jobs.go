package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"boolpool/encoders"
	"boolpool/server/apperr"
	"boolpool/server/embedjob"
	"boolpool/server/jobs"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/web/api"
)

// jobKinds are the background job kinds of serve and worker: retrieve
// (dense methods with their encoder opened here), encode, index and pool,
// as their commands do them, cal-batch (a live cal pool's next batch) and
// atoms-batch (a live atoms pool's next batch of constraint items).
// cacheDir is the encoders' cache ("" = the default); device runs the dense
// encoders of encode jobs (encoders.DeviceCPU or DeviceCUDA).
func jobKinds(st *store.Store, log *slog.Logger, cacheDir, device string) map[string]jobs.Kind {
	return map[string]jobs.Kind{
		api.JobKindRetrieve:  jobs.Retrieve(st, log, denseOpener(st, log, cacheDir)),
		api.JobKindEncode:    encodeKind(st, log, cacheDir, device),
		api.JobKindIndex:     jobs.Index(st, log),
		api.JobKindPool:      jobs.Pool(st, log),
		pooling.CALJobKind:   jobs.CALBatch(pooling.NewCALGrower(st, log)),
		pooling.AtomsJobKind: jobs.AtomsBatch(st, log),
	}
}

// jobEncoders are the encoder names encode jobs accept (for the setup page).
func jobEncoders() []string { return append(encoders.Names(), encoders.LexicalName) }

// jobFlags are the job queue's flags of serve and worker.
type jobFlags struct {
	queues      string
	concurrency int
	device      string
	rescueAfter time.Duration
	maxAttempts int
}

// register adds the flags; concurrencyFlag names the concurrency flag
// ("workers" for serve, "concurrency" for worker).
func (f *jobFlags) register(fs *flag.FlagSet, concurrencyFlag, concurrencyDoc string, concurrency int) {
	fs.IntVar(&f.concurrency, concurrencyFlag, concurrency, concurrencyDoc)
	fs.StringVar(&f.queues, "queues", os.Getenv("BOOLPOOL_QUEUES"), "comma-separated job queues to work: "+jobs.QueueDefault+
		" (retrieval runs, indexes, pools), "+jobs.QueueEncode+" (encoders); empty = both (env BOOLPOOL_QUEUES)")
	fs.StringVar(&f.device, "device", encoders.DeviceCPU, "execution `device` of the dense encoders of encode jobs: cpu or cuda")
	fs.DurationVar(&f.rescueAfter, "rescue-after", 2*time.Minute, "a running job whose worker has sent no heartbeat for this long (the worker died) is given to another worker")
	fs.IntVar(&f.maxAttempts, "max-attempts", 5, "attempts of a job this process starts before it fails (a worker's shutdown does not use one up)")
}

func (f *jobFlags) validate() error {
	if f.concurrency < 0 {
		return fmt.Errorf("%w: the number of concurrent jobs must be 0 or more", errUsage)
	}
	if f.device != encoders.DeviceCPU && f.device != encoders.DeviceCUDA {
		return fmt.Errorf("%w: --device must be cpu or cuda", errUsage)
	}
	if f.rescueAfter < time.Second {
		return fmt.Errorf("%w: --rescue-after must be at least 1s", errUsage)
	}
	if f.maxAttempts < 1 {
		return fmt.Errorf("%w: --max-attempts must be at least 1", errUsage)
	}
	return nil
}

// newJobClient builds the job queue's client of serve and worker; it works
// jobs only when the flags' concurrency is above 0.
func newJobClient(st *store.Store, log *slog.Logger, cacheDir string, f jobFlags) (*jobs.Client, error) {
	var queues []string
	for _, q := range strings.Split(f.queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			queues = append(queues, q)
		}
	}
	c, err := jobs.New(st, log, jobKinds(st, log, cacheDir, f.device), jobs.Config{
		Queues: queues, Concurrency: f.concurrency, RescueAfter: f.rescueAfter, MaxAttempts: f.maxAttempts,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return c, nil
}

// stopJobs stops a job client at the end of a command, handing its running
// jobs back to the queue.
func stopJobs(ctx context.Context, c *jobs.Client, log *slog.Logger) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := c.Stop(stopCtx); err != nil {
		log.Warn("stopping the job worker", "err", err)
	}
}

// denseOpener opens a dense encoder over a project's pgvector embeddings,
// as `boolpool retrieve --vectors pgvector` does.
func denseOpener(st *store.Store, log *slog.Logger, cacheDir string) jobs.DenseOpener {
	return func(ctx context.Context, projectID int64, encoder string) (*retrieval.Dense, func(), error) {
		p, err := st.ProjectByID(ctx, projectID)
		if err != nil {
			return nil, nil, err
		}
		env := &retrieveEnv{st: st, project: p, encoder: encoder, log: log, cacheDir: cacheDir}
		d, err := env.denseDeps(ctx)
		if err != nil {
			env.Close()
			return nil, nil, jobs.Permanent(notPrepared(err))
		}
		return d, env.Close, nil
	}
}

// encodeKind is the job kind of `boolpool encode`. Progress is documents
// (then query texts) encoded of those to encode.
// A retry resumes: the documents of batches already committed keep their
// vectors (as a second `boolpool encode` does), and a reset is done only by
// the attempt that starts the job.
func encodeKind(st *store.Store, log *slog.Logger, cacheDir, device string) jobs.Kind {
	return jobs.Kind{
		Queue: jobs.QueueEncode,
		Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			_, err := encodeParams(raw)
			return err
		},
		Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			job, report := a.Job, a.Report
			p, err := encodeParams(job.Params)
			if err != nil {
				return nil, err
			}
			opt := embedjob.Options{
				ProjectID: job.ProjectID, Batch: p.Batch, Queries: !p.SkipQueries, Reset: p.Reset && !a.Resumed, Log: log,
				AfterBatch:      func(done, total int) { report("encoding documents", done, total) },
				AfterQueryBatch: func(done, total int) { report("encoding query texts", done, total) },
			}
			report("loading the encoder", 0, 0)
			var rep embedjob.Report
			if p.Encoder == encoders.LexicalName {
				tok, err := encoders.LoadTokenizer(cacheDir)
				if err != nil {
					return nil, jobs.Permanent(notPrepared(err))
				}
				rep, err = embedjob.Lexical(ctx, st, tok, opt)
				if err != nil {
					return nil, err
				}
				return rep, nil
			}
			rt, err := openRuntime(encoders.Config{CacheDir: cacheDir, Device: device, NoSpin: true})
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
		},
	}
}

func encodeParams(raw json.RawMessage) (api.EncodeJobParams, error) {
	var p api.EncodeJobParams
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, apperr.Invalidf("params", "bad job parameters: %v", err)
	}
	known := append(encoders.Names(), encoders.LexicalName)
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
