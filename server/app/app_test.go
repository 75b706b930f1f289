package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/config"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// productionKinds are the job kinds `boolpool serve` and `boolpool worker`
// run, by their names' own constants.
var productionKinds = []string{vocab.JobKindRetrieve, vocab.JobKindEncode, vocab.JobKindIndex, vocab.JobKindPool, pooling.CALJobKind, pooling.AtomsJobKind}

func newApp(t *testing.T, st *store.Store, opts app.Options) *app.App {
	return apptest.New(t, config.Config{SessionTTL: time.Hour}, st, slog.New(slog.DiscardHandler), opts)
}

// TestNewRegistersEveryJobKind: every composition — serve's (with a
// worker or none), the worker's and the tests' (no relay) — has the job
// client of every production kind and the services of its mode.
func TestNewRegistersEveryJobKind(t *testing.T) {
	st := storetest.New(t)
	want := slices.Sorted(slices.Values(productionKinds))
	for _, tc := range []struct {
		name string
		opts app.Options
	}{
		{"serve --workers 0", app.Options{}},
		{"serve with a worker", app.Options{Jobs: jobs.Config{Concurrency: 1, Test: true}}},
		{"worker", app.Options{JobsOnly: true, Jobs: jobs.Config{Concurrency: 1, Test: true}}},
		{"no relay", app.Options{NoRelay: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t, st, tc.opts)
			if got := a.Jobs.Kinds(); !slices.Equal(got, want) {
				t.Errorf("job kinds %v, want %v", got, want)
			}
			if got := a.Services.Jobs.Kinds(); !slices.Equal(got, want) {
				t.Errorf("the services' job kinds %v, want %v", got, want)
			}
			svc := a.Services
			if tc.opts.JobsOnly {
				if svc.Judging != nil || svc.Consensus != nil || svc.Live != nil || svc.Auth != nil || svc.Relay != nil {
					t.Errorf("the worker built HTTP services: %+v", svc)
				}
				return
			}
			if svc.Store != st || svc.Judging == nil || svc.Consensus == nil || svc.Live == nil || svc.Auth == nil {
				t.Fatalf("missing services: %+v", svc)
			}
			if (svc.Relay == nil) != tc.opts.NoRelay {
				t.Errorf("relay %v with NoRelay %v", svc.Relay, tc.opts.NoRelay)
			}
			if !slices.Contains(svc.Encoders, "lexical") || len(svc.Encoders) < 2 {
				t.Errorf("encoders %v", svc.Encoders)
			}
		})
	}
	if _, err := app.New(context.Background(), config.Config{}, st, nil, app.Options{Jobs: jobs.Config{Concurrency: 1, Queues: []string{"gpu"}}}); err == nil {
		t.Fatal("a queue no kind uses was accepted")
	} else if ce := (*app.ConfigError)(nil); !errors.As(err, &ce) {
		t.Fatalf("error %v is not a ConfigError", err)
	}
}

// TestNewWiresTheJudgmentFlow: a relevance judgment stored through the
// composition's judging service reaches the consensus (registered as its
// observer), and Close applies it before stopping.
func TestNewWiresTheJudgmentFlow(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.New(ctx, config.Config{SessionTTL: time.Hour}, st, log, app.Options{NoRelay: true})
	if err != nil {
		t.Fatal(err)
	}
	rater := judging.Rater{ID: fx.Users["annotator1"].ID, Role: vocab.RoleAnnotator}
	q, err := a.Services.Judging.Queue(ctx, rater, fx.Project.Name, judging.QueueRequest{Kind: vocab.KindRelevance, N: 1})
	if err != nil || len(q.Tasks) == 0 {
		t.Fatalf("queue: %+v %v", q, err)
	}
	item := q.Tasks[0].ItemID
	r := 3
	req := judging.JudgmentRequest{ClientID: "00000000-0000-4000-8000-000000000001", AuthorID: rater.ID, ItemID: item,
		Kind: vocab.KindRelevance, Relevance: &r, Evidence: "complete"}
	if _, err := a.Services.Judging.Submit(ctx, rater, req); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil { // applies every queued judgment
		t.Fatal(err)
	}
	row, err := st.ConsensusOf(ctx, item)
	if err != nil {
		t.Fatalf("no consensus of the judged item %d: %v", item, err)
	}
	if row.ItemID != item || row.Votes != 1 {
		t.Fatalf("consensus %+v, want the one vote of item %d", row, item)
	}
}
