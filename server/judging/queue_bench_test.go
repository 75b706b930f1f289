package judging_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"boolpool/server/devtools/loadgen"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// BenchmarkQueueAndSubmit is one rater's cycle (lease the next item with
// its task view and progress, then judge it) on a 6,000-item project where
// 2,000 items are already judged by others, r = 3.
func BenchmarkQueueAndSubmit(b *testing.B) {
	st := storetest.New(b)
	ctx := context.Background()
	creds, err := loadgen.Fixture(ctx, st, "qbench", 6000, 4, 3)
	if err != nil {
		b.Fatal(err)
	}
	var users []store.User
	for _, c := range creds {
		u, err := st.UserByUsername(ctx, c.Username)
		if err != nil {
			b.Fatal(err)
		}
		users = append(users, u)
	}
	svc := judging.New(st, nil, nil)
	submit := func(u store.User, t judging.Task, n int) {
		rel := 2
		if _, err := svc.Submit(ctx, judging.Rater{ID: u.ID, Role: u.Role}, judging.JudgmentRequest{
			ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), AuthorID: u.ID, ItemID: t.ItemID, Kind: "relevance", Relevance: &rel, Evidence: "none"}); err != nil {
			b.Fatal(err)
		}
	}
	// Others judge 2,000 items first.
	n := 0
	for i := 0; i < 2000; i++ {
		u := users[1+i%3]
		q, err := svc.Queue(ctx, judging.Rater{ID: u.ID, Role: u.Role}, "qbench", judging.QueueRequest{Kind: "relevance", N: 1})
		if err != nil || len(q.Tasks) == 0 {
			b.Fatal(err)
		}
		n++
		submit(u, q.Tasks[0], n)
	}
	me := judging.Rater{ID: users[0].ID, Role: users[0].Role}
	var queueTime time.Duration
	for b.Loop() {
		start := time.Now()
		q, err := svc.Queue(ctx, me, "qbench", judging.QueueRequest{Kind: "relevance", N: 1})
		queueTime += time.Since(start)
		if err != nil || len(q.Tasks) == 0 {
			b.Fatal(err)
		}
		n++
		submit(users[0], q.Tasks[0], n)
	}
	b.ReportMetric(float64(queueTime.Microseconds())/float64(b.N)/1000, "ms-queue")
}
