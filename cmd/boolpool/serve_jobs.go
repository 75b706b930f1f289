package main

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
	"boolpool/server/embedjob"
	"boolpool/server/jobs"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/web/api"
)

// serveJobs is the background job configuration of `boolpool serve`: the
// retrieve kind with dense methods (their encoder opened here) and the
// encode kind, both as their commands do them. cacheDir is the encoders'
// cache ("" = the default).
func serveJobs(st *store.Store, log *slog.Logger, cacheDir string) jobsConfig {
	return jobsConfig{
		Kinds: map[string]jobs.Kind{
			api.JobKindRetrieve: jobs.Retrieve(st, log, denseOpener(st, log, cacheDir)),
			api.JobKindEncode:   encodeKind(st, log, cacheDir),
		},
		Encoders: append(encoders.Names(), encoders.LexicalName),
		Workers:  1,
	}
}

// jobsConfig is what the serve command's jobs runner is built from (the
// encode kind needs the encoders package, which the HTTP layer does not
// import).
type jobsConfig struct {
	Kinds    map[string]jobs.Kind // by kind name (api.JobKindRetrieve, api.JobKindEncode)
	Encoders []string             // encoder names the encode kind accepts, for the setup page
	Workers  int                  // concurrent jobs (default 1)
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
			return nil, nil, notPrepared(err)
		}
		return d, env.Close, nil
	}
}

// encodeKind is the job kind of `boolpool encode`. Progress is documents
// (then query texts) encoded of those to encode.
func encodeKind(st *store.Store, log *slog.Logger, cacheDir string) jobs.Kind {
	return jobs.Kind{
		Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			_, err := encodeParams(raw)
			return err
		},
		Run: func(ctx context.Context, job store.Job, report jobs.Report) (any, error) {
			p, err := encodeParams(job.Params)
			if err != nil {
				return nil, err
			}
			opt := embedjob.Options{
				ProjectID: job.ProjectID, Batch: p.Batch, Queries: !p.SkipQueries, Reset: p.Reset, Log: log,
				AfterBatch:      func(done, total int) { report("encoding documents", done, total) },
				AfterQueryBatch: func(done, total int) { report("encoding query texts", done, total) },
			}
			report("loading the encoder", 0, 0)
			var rep embedjob.Report
			if p.Encoder == encoders.LexicalName {
				tok, err := encoders.LoadTokenizer(cacheDir)
				if err != nil {
					return nil, notPrepared(err)
				}
				rep, err = embedjob.Lexical(ctx, st, tok, opt)
				if err != nil {
					return nil, err
				}
				return rep, nil
			}
			rt, err := openRuntime(encoders.Config{CacheDir: cacheDir, NoSpin: true})
			if err != nil {
				return nil, notPrepared(err)
			}
			defer rt.Close()
			enc, err := rt.Open(ctx, p.Encoder)
			if err != nil {
				return nil, notPrepared(err)
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
