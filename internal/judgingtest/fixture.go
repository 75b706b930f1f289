// Package judgingtest builds a small, self-contained judging project through
// the store's own functions, for the judging, HTTP and browser tests:
// documents split into sentences, queries with AND / NOT expressions,
// relevance and paraphrase items, and accounts of every role.
package judgingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/auth"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

// Password is every fixture account's password.
const Password = "correct horse battery"

// Fixture names what was created.
type Fixture struct {
	Project    store.Project
	Other      store.Project // a second project the annotators are not in
	Users      map[string]store.User
	Queries    map[string]int64 // ext id → id
	Documents  map[string]int64
	Relevance  []int64 // relevance item ids, in priority order
	Paraphrase []int64
}

type doc struct {
	id, title string
	sentences []string
}

var docs = []doc{
	{"d1", "Andean tyrannulet", []string{"The Andean tyrannulet is a small passerine bird.", "It is found in the Andes of Venezuela.", "Its range extends south into Colombia."}},
	{"d2", "Mérida flowerpiercer", []string{"The Mérida flowerpiercer is a bird of the tanager family.", "It is endemic to the Venezuelan Andes.", "It lives in humid montane forest."}},
	{"d3", "Scarlet ibis", []string{"The scarlet ibis is a wading bird.", "It is the national bird of Trinidad and Tobago.", "Large colonies live in coastal Venezuela and Colombia."}},
	{"d4", "Hoatzin", []string{"The hoatzin is a tropical bird.", "It lives in swamps of the Amazon and Orinoco basins.", "Its chicks have claws on their wings."}},
	{"d5", "Amélie", []string{"Amélie is a 2001 romantic comedy film.", "It is set in Montmartre, Paris.", "It stars Audrey Tautou."}},
	{"d6", "Ratatouille", []string{"Ratatouille is a 2007 animated comedy film.", "A rat dreams of becoming a chef in Paris."}},
}

// query is a fixture query: its marked text and expression.
type query struct {
	id, marked string
	expr       *boolexpr.Expr
	docs       []string
}

var queries = []query{
	{"q1", "<mark>Birds of the Venezuelan Andes</mark> but not <mark>birds of Colombia</mark>",
		boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))), []string{"d1", "d2", "d3", "d4"}},
	{"q2", "<mark>Films set in Paris</mark> that are also <mark>comedy films</mark>",
		boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1)), []string{"d5", "d6"}},
}

// New builds the fixture in st. ratersPerItem sets the project's r.
func New(t testing.TB, st *store.Store, ratersPerItem int) *Fixture {
	t.Helper()
	f, err := Build(context.Background(), st, "fixture", ratersPerItem)
	if err != nil {
		t.Fatalf("judgingtest: %v", err)
	}
	return f
}

// Build creates project name with its documents, queries, items and users
// annotator1..3, outsider (annotator of another project), researcher and
// admin, all with Password. Cheap password hashing keeps tests fast.
func Build(ctx context.Context, st *store.Store, name string, ratersPerItem int) (*Fixture, error) {
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		return nil, err
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE projects SET raters_per_item = $2, gold_rate = 0 WHERE id = $1`, p.ID, ratersPerItem); err != nil {
		return nil, fmt.Errorf("set raters: %w", err)
	}
	if p, err = st.ProjectByID(ctx, p.ID); err != nil {
		return nil, err
	}
	other, err := st.EnsureProject(ctx, name+"-other")
	if err != nil {
		return nil, err
	}
	f := &Fixture{Project: p, Other: other, Users: map[string]store.User{}, Queries: map[string]int64{}, Documents: map[string]int64{}}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, d := range docs {
			body, starts := join(d.sentences)
			if err := im.Document(ctx, store.DocumentIn{ExtID: d.id, Title: d.title, Body: body, SentenceStarts: starts}); err != nil {
				return err
			}
		}
		for i, q := range queries {
			spans, text, err := boolexpr.ParseMarked(q.marked)
			if err != nil {
				return err
			}
			var atoms []store.Atom
			for _, s := range spans {
				atoms = append(atoms, store.Atom{Text: text[s.Start:s.End], Start: s.Start, End: s.End})
			}
			expr, err := json.Marshal(q.expr)
			if err != nil {
				return err
			}
			id, err := im.Query(ctx, store.QueryIn{ExtID: q.id, Text: text, OriginalQuery: q.marked, Atoms: atoms, Expression: expr, Seq: i})
			if err != nil {
				return err
			}
			f.Queries[q.id] = id
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	prio := 0
	for _, q := range queries {
		for _, did := range q.docs {
			d, err := st.DocumentByExtID(ctx, p.ID, did)
			if err != nil {
				return nil, err
			}
			f.Documents[did] = d.ID
			docID := d.ID
			it, err := st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: api.KindRelevance, QueryID: f.Queries[q.id], DocumentID: &docID, Priority: prio})
			if err != nil {
				return nil, err
			}
			prio++
			f.Relevance = append(f.Relevance, it.ID)
		}
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: api.KindParaphrase, QueryID: f.Queries[q.id], Priority: prio})
		if err != nil {
			return nil, err
		}
		f.Paraphrase = append(f.Paraphrase, it.ID)
	}
	cheap := auth.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1}
	hash, err := auth.HashPassword(Password, cheap)
	if err != nil {
		return nil, err
	}
	accounts := []struct{ name, role, project string }{
		{"annotator1", api.RoleAnnotator, name}, {"annotator2", api.RoleAnnotator, name}, {"annotator3", api.RoleAnnotator, name},
		{"annotator4", api.RoleAnnotator, name},
		{"outsider", api.RoleAnnotator, other.Name},
		{"researcher", api.RoleResearcher, name}, {"admin", api.RoleAdmin, name},
	}
	for _, a := range accounts {
		u, err := st.CreateUser(ctx, store.NewUser{Username: a.name, Role: a.role, PasswordHash: hash})
		if err != nil {
			return nil, err
		}
		proj, err := st.ProjectByName(ctx, a.project)
		if err != nil {
			return nil, err
		}
		if err := st.AddProjectMember(ctx, proj.ID, u.ID); err != nil {
			return nil, err
		}
		f.Users[a.name] = u
	}
	return f, nil
}

// Annotators creates n annotator accounts named prefix0, prefix1, … (no
// password, no project) and returns their ids in that order.
func Annotators(t testing.TB, st *store.Store, prefix string, n int) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		u, err := st.CreateUser(context.Background(), store.NewUser{Username: fmt.Sprintf("%s%d", prefix, i), Role: api.RoleAnnotator, PasswordHash: "x"})
		if err != nil {
			t.Fatalf("judgingtest: %v", err)
		}
		ids[i] = u.ID
	}
	return ids
}

// join concatenates sentences with single spaces and returns each one's
// byte offset.
func join(sentences []string) (string, []int32) {
	var b strings.Builder
	starts := make([]int32, 0, len(sentences))
	for i, s := range sentences {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts = append(starts, int32(b.Len()))
		b.WriteString(s)
	}
	return b.String(), starts
}

// AddRelevanceItems adds n more documents about birds, each a relevance
// item for the fixture's first query (for benchmarks that judge many items).
func AddRelevanceItems(ctx context.Context, st *store.Store, f *Fixture, n int) error {
	_, err := st.Import(ctx, f.Project.ID, func(im *store.Importer) error {
		for i := 0; i < n; i++ {
			body, starts := join([]string{
				fmt.Sprintf("Bird number %d is a passerine.", i),
				"It is found in the Andes of Venezuela.",
				"It has not been recorded in Colombia.",
			})
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("bench-%d", i), Title: fmt.Sprintf("Bird %d", i), Body: body, SentenceStarts: starts}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("import bench documents: %w", err)
	}
	for i := 0; i < n; i++ {
		d, err := st.DocumentByExtID(ctx, f.Project.ID, fmt.Sprintf("bench-%d", i))
		if err != nil {
			return err
		}
		id := d.ID
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: f.Project.ID, Kind: api.KindRelevance, QueryID: f.Queries["q1"], DocumentID: &id, Priority: 1000 + i})
		if err != nil {
			return err
		}
		f.Relevance = append(f.Relevance, it.ID)
	}
	return nil
}

// AddOtherProjectItems makes user a member of the fixture's other project
// too and gives that project a query ("Films set in Paris") with n
// relevance items (documents "other-0" …), for annotators in two projects.
// It returns the items' ids.
func AddOtherProjectItems(ctx context.Context, st *store.Store, f *Fixture, user string, n int) ([]int64, error) {
	if err := st.AddProjectMember(ctx, f.Other.ID, f.Users[user].ID); err != nil {
		return nil, err
	}
	var qid int64
	_, err := st.Import(ctx, f.Other.ID, func(im *store.Importer) error {
		for i := 0; i < n; i++ {
			body, starts := join([]string{fmt.Sprintf("Film number %d is set in Paris.", i), "It is a comedy."})
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("other-%d", i), Title: fmt.Sprintf("Film %d", i), Body: body, SentenceStarts: starts}); err != nil {
				return err
			}
		}
		text := "Films set in Paris"
		expr, err := json.Marshal(boolexpr.Atom(0))
		if err != nil {
			return err
		}
		qid, err = im.Query(ctx, store.QueryIn{ExtID: "oq1", Text: text, OriginalQuery: text,
			Atoms: []store.Atom{{Text: text, Start: 0, End: len(text)}}, Expression: expr})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("import the other project: %w", err)
	}
	var ids []int64
	for i := 0; i < n; i++ {
		d, err := st.DocumentByExtID(ctx, f.Other.ID, fmt.Sprintf("other-%d", i))
		if err != nil {
			return nil, err
		}
		id := d.ID
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: f.Other.ID, Kind: api.KindRelevance, QueryID: qid, DocumentID: &id, Priority: i})
		if err != nil {
			return nil, err
		}
		ids = append(ids, it.ID)
	}
	return ids, nil
}
