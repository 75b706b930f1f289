package store_test

import (
	"context"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// BenchmarkBrowse times the item browser's and the review queue's SQL on
// a project of the demo's size (238 queries, 2,284 relevance items, three
// annotators' judgments of each, a consensus row per item):
//
//	go test -run '^$' -bench Browse -benchtime 50x ./server/store/
func BenchmarkBrowse(b *testing.B) {
	ctx := context.Background()
	st, p := storetest.NewProject(b, "bench")
	var users []int64
	for _, name := range []string{"a1", "a2", "a3"} {
		u, err := st.CreateUser(ctx, store.NewUser{Username: name, Role: "annotator", PasswordHash: "x"})
		if err != nil {
			b.Fatal(err)
		}
		users = append(users, u.ID)
	}
	withUsers := map[bool][]any{false: {p.ID}, true: {p.ID, users}}
	for _, step := range []struct {
		sql   string
		users bool
	}{
		{sql: `INSERT INTO queries (project_id, ext_id, text, seq) SELECT $1, 'q' || g, 'Query number ' || g || ' about birds', g FROM generate_series(1, 238) g`},
		{sql: `INSERT INTO documents (project_id, ext_id, title, body, content_hash)
			SELECT $1, 'd' || g, 'Document ' || g, 'Body ' || g || '.', sha256(('d' || g)::bytea) FROM generate_series(1, 2284) g`},
		{sql: `INSERT INTO items (project_id, kind, query_id, document_id)
			SELECT $1, 'relevance', q.id, d.id FROM documents d
			JOIN queries q ON q.project_id = $1 AND q.seq = 1 + (substr(d.ext_id, 2)::int % 238) WHERE d.project_id = $1`},
		{users: true, sql: `INSERT INTO judgments (client_id, item_id, user_id, kind, relevance, evidence)
			SELECT gen_random_uuid(), i.id, u, 'relevance', ((i.id * 7 + u * 3) % 4)::smallint, 'complete'
			FROM items i, unnest($2::bigint[]) u WHERE i.project_id = $1`},
		{sql: `INSERT INTO consensus (item_id, project_id, query_id, relevance, status, votes, relevant_votes)
			SELECT i.id, $1, i.query_id, 1, CASE WHEN count(*) FILTER (WHERE j.relevance >= 2) IN (0, 3) THEN 'unanimous' ELSE 'majority' END,
				count(*), count(*) FILTER (WHERE j.relevance >= 2)
			FROM items i JOIN judgments j ON j.item_id = i.id WHERE i.project_id = $1 GROUP BY i.id, i.query_id`},
	} {
		if _, err := st.Pool().Exec(ctx, step.sql, withUsers[step.users]...); err != nil {
			b.Fatalf("%s: %v", step.sql, err)
		}
	}
	if _, err := st.Pool().Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		f    store.BrowseFilter
	}{
		{"all", store.BrowseFilter{Label: -1, Kind: "relevance"}},
		{"disagree", store.BrowseFilter{Label: -1, Kind: "relevance", Agreement: store.AgreementDisagree}},
		{"text", store.BrowseFilter{Label: -1, Kind: "relevance", Text: "number 17 "}},
		{"annotator-label", store.BrowseFilter{Label: 3, Kind: "relevance", AnnotatorID: users[1]}},
		{"disagree-page-20", store.BrowseFilter{Label: -1, Kind: "relevance", Agreement: store.AgreementDisagree, Offset: 1000}},
	} {
		bc.f.Limit = 50
		b.Run("items-"+bc.name, func(b *testing.B) {
			for b.Loop() {
				rows, total, err := st.BrowseItems(ctx, p.ID, bc.f)
				if err != nil || total == 0 || len(rows) == 0 {
					b.Fatalf("%d rows of %d: %v", len(rows), total, err)
				}
			}
		})
	}
	b.Run("queries-text", func(b *testing.B) {
		for b.Loop() {
			if _, total, err := st.BrowseQueries(ctx, p.ID, "about birds", 50, 0); err != nil || total != 238 {
				b.Fatalf("%d: %v", total, err)
			}
		}
	})
	b.Run("review-counts", func(b *testing.B) {
		for b.Loop() {
			if cs, err := st.ReviewCounts(ctx, p.ID); err != nil || len(cs) != 3 {
				b.Fatalf("%v: %v", cs, err)
			}
		}
	})
	b.Run("review-queue", func(b *testing.B) {
		for b.Loop() {
			if _, total, err := st.ReviewQueue(ctx, p.ID, users[0], 25, 0); err != nil || total != 2284 {
				b.Fatalf("%d: %v", total, err)
			}
		}
	})
}
