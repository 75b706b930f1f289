package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// Pool is the job kind of the pool builder's publish: its parameters are
// the builder's PoolRequest (with a name), and it builds, saves and
// publishes the pool (pooling.Make, as `boolpool pool` does) in one
// transaction. Progress is queries built of the pool's queries; the result
// is an PoolPublished. A retry after a failed attempt starts over (that
// attempt wrote nothing); one whose earlier attempt had published the pool
// reports that pool instead of publishing it twice. The spec is checked
// when the job is submitted (pooling.Check, and no published pool of that
// name yet), so a bad spec is a 4xx naming its field.
func Pool(st *store.Store, atoms AtomsPools, log *slog.Logger) Kind {
	return Kind{
		Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			_, spec, err := poolParams(raw)
			if err != nil {
				return err
			}
			if _, err := pooling.Check(ctx, st, projectID, spec); err != nil {
				return err
			}
			return notPublished(ctx, st, projectID, spec.Name)
		},
		Run: func(ctx context.Context, a Attempt) (any, error) {
			req, spec, err := poolParams(a.Job.Params)
			if err != nil {
				return nil, err
			}
			var by int64
			if a.Job.CreatedBy != nil {
				by = *a.Job.CreatedBy
			}
			if spec.Strategy == pooling.Atoms {
				return publishAtoms(ctx, st, atoms, a, req, spec, by, log)
			}
			m, err := pooling.Make(ctx, st, a.Job.ProjectID, pooling.MakeRequest{Spec: spec, Publish: true,
				RatersPerItem: req.RatersPerItem, By: by, JobID: a.Job.ID}, log, pooling.Progress(a.Report))
			if errors.Is(err, store.ErrConflict) {
				// Published meanwhile by another job or command.
				return nil, Permanent(err)
			}
			if err != nil {
				return nil, err
			}
			if m.Again {
				log.Info("pool already published by an earlier attempt", "job", a.Job.ID, "pool", m.PoolID)
			}
			return PublishedOf(m), nil
		},
	}
}

// publishAtoms publishes a atoms pool (constraint items: the first
// batch now, the next ones as they are labelled; AtomsPools.Publish).
// ItemsCreated counts constraint items. A retry whose earlier attempt
// published the pool reports it (the name was free when the job was
// submitted).
func publishAtoms(ctx context.Context, st *store.Store, atoms AtomsPools, a Attempt, req PoolRequest, spec pooling.Spec, by int64, log *slog.Logger) (any, error) {
	if p, err := st.PoolByName(ctx, a.Job.ProjectID, spec.Name); err == nil && p.Status != "draft" {
		log.Info("atoms pool already published by an earlier attempt", "job", a.Job.ID, "pool", p.ID)
		return PoolPublished{PoolID: p.ID}, nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	proj, err := st.ProjectByID(ctx, a.Job.ProjectID)
	if err != nil {
		return nil, err
	}
	raters := proj.RatersPerItem
	if req.RatersPerItem != 0 {
		if err := st.SetRatersPerItem(ctx, proj.ID, by, req.RatersPerItem); err != nil {
			return nil, err
		}
		raters = req.RatersPerItem
	}
	a.Report("publishing the pool", 0, 0)
	rep, created, err := atoms.Publish(ctx, proj.ID, spec, by, float64(proj.GoldRate))
	if err != nil {
		return nil, err
	}
	return PoolPublished{PoolID: rep.PoolID, ItemsCreated: created, RatersPerItem: raters, Preview: PreviewOf(rep)}, nil
}

// SpecOf translates the pool builder's request into the pooling package's;
// pooling.Check then validates it against the project's runs.
func SpecOf(req PoolRequest) (pooling.Spec, error) {
	spec := pooling.Spec{Name: strings.TrimSpace(req.Name), Runs: req.Runs, Depth: req.Depth, Strategy: req.Strategy,
		Probes: req.Probes, ProbeDepth: req.ProbeDepth, Split: req.Split, JudgedK: req.JudgedK,
		CAL:    pooling.CALParams{Batch: req.CALBatch, Stop: req.CALStop, Max: req.CALMax, SeedRuns: req.CALSeedRuns},
		Atoms:  pooling.AtomsParams{Batch: req.AtomsBatch, Max: req.AtomsMax, Candidates: req.AtomsCandidates},
		Sample: sampleParams(req.Sample)}
	if req.RatersPerItem != 0 && (req.RatersPerItem < 1 || req.RatersPerItem > 20) {
		return spec, apperr.Invalidf("raters_per_item", "must be between 1 and 20")
	}
	return spec, nil
}

// Preview is what the pool of req would contain (the pool builder's
// preview); nothing is saved.
func Preview(ctx context.Context, st *store.Store, projectID int64, req PoolRequest, log *slog.Logger) (PoolPreview, error) {
	spec, err := SpecOf(req)
	if err != nil {
		return PoolPreview{}, err
	}
	rep, err := pooling.Preview(ctx, st, projectID, spec, log)
	if err != nil {
		return PoolPreview{}, err
	}
	return PreviewOf(rep), nil
}

// PreviewOf is the preview of a pool's report.
func PreviewOf(rep pooling.Report) PoolPreview {
	comp := rep.Composition
	if comp.Runs == nil {
		comp.Runs = []PoolRunStats{} // the preview's runs are a JSON list, never null
	}
	return PoolPreview{Name: rep.Name, Strategy: rep.Strategy, Depth: rep.Depth, Items: comp.Items, JudgedAtK: rep.JudgedAtK,
		Composition: comp, Sample: sampleDrawn(rep.Sample)}
}

// PublishedOf is a published pool as the pool job's result.
func PublishedOf(m pooling.Made) PoolPublished {
	return PoolPublished{PoolID: m.PoolID, ItemsCreated: m.Publish.Items, Gold: m.Publish.Gold, NoDocText: m.Publish.NoDocText,
		RatersPerItem: m.RatersPerItem, Preview: PreviewOf(m.Report)}
}

// poolParams decodes a pool job's parameters; the name is required (the
// publish endpoint fills one in), so that a retry publishes the same pool.
func poolParams(raw json.RawMessage) (PoolRequest, pooling.Spec, error) {
	var req PoolRequest
	if err := strictJSON(raw, &req); err != nil {
		return req, pooling.Spec{}, err
	}
	spec, err := SpecOf(req)
	return req, spec, err
}

// notPublished refuses a pool name that a published pool of the project
// has (a published pool is never replaced).
func notPublished(ctx context.Context, st *store.Store, projectID int64, name string) error {
	p, err := st.PoolByName(ctx, projectID, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Status == "draft" {
		return nil
	}
	return apperr.Refusedf(apperr.ErrConflict, "name", "pool %q is already %s; choose another name", apperr.Clip(name, 80), p.Status)
}
