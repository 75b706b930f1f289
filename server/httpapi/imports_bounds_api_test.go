package httpapi_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"boolpool/api"
)

// TestImportReportsDuplicates: an upload whose lines repeat a document
// stores it once and says so in the answer: the count, the first lines
// and a note.
func TestImportReportsDuplicates(t *testing.T) {
	e := newSetupEnv(t)
	r := e.login("researcher")
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "dups"}, nil); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	docs := questDocs + strings.SplitN(questDocs, "\n", 2)[0] + "\n" + strings.SplitN(questDocs, "\n", 2)[0] + "\n"
	var res api.ImportResult
	if st, prob := r.upload("dups", "quest", map[string]string{"documents.jsonl": docs}, []string{"documents.jsonl"}, &res); st != 200 {
		t.Fatalf("upload: %d %+v", st, prob)
	}
	f := res.Files[0]
	if f.Documents != 3 || f.Duplicates != 2 || !reflect.DeepEqual(f.DuplicateLines, []int{4, 5}) {
		t.Fatalf("import result %+v", f)
	}
	if len(f.Notes) == 0 || !strings.Contains(f.Notes[len(f.Notes)-1], "2 records repeated") {
		t.Fatalf("notes %q", f.Notes)
	}
}

// TestDecomposeLongQuery: the decomposer's suggestion for a stored query
// of 200,000 words is a 400 naming the text, at once (before: 38 s of
// work, on after the client left); "decompose all" lists it as failed.
func TestDecomposeLongQuery(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	long := strings.Repeat("cats, dogs or birds but not fish ", 200000/7)
	if _, err := e.st.Pool().Exec(ctx, `UPDATE queries SET text = $2, expression = NULL, atoms = '[]' WHERE id = $1`, e.fx.Queries["q2"], long); err != nil {
		t.Fatal(err)
	}
	u := e.login("researcher")
	start := time.Now()
	var prob api.Problem
	if st := u.do("GET", "/api/queries/"+strconv.FormatInt(e.fx.Queries["q2"], 10)+"/decompose", nil, &prob); st != http.StatusBadRequest ||
		prob.Field != "text" || !strings.Contains(prob.Detail, "a query may have") {
		t.Fatalf("decompose: %d %+v", st, prob)
	}
	var sum api.DecomposeSummary
	if st := u.do("POST", "/api/projects/fixture/decompose", api.DecomposeAllRequest{OnlyMissing: true}, &sum); st != 200 ||
		len(sum.Failed) != 1 || !strings.Contains(sum.Failed[0].Reason, "a query may have") {
		t.Fatalf("decompose all: %d %+v", st, sum)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v", took)
	}
}

// TestImportsPerUserBounded: while a researcher has two uploads importing
// (here: requests whose body does not arrive), a third is answered 429 at
// once, naming the flag; another user is not affected; when one ends the
// next goes through (issue 29: 34 slow imports of one user stalled
// others).
func TestImportsPerUserBounded(t *testing.T) {
	e := newSetupEnv(t)
	r := e.login("researcher")
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "slow"}, nil); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	base, err := url.Parse(e.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, c := range r.c.Jar.Cookies(base) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	// Two uploads whose headers arrive and whose body does not.
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 2 {
		c, err := net.Dial("tcp", base.Host)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /api/projects/slow/imports HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=x\r\n"+
			"Transfer-Encoding: chunked\r\n%s: %s\r\nCookie: %s\r\n\r\n", base.Host, api.CSRFHeader, r.csrf, strings.Join(cookies, "; "))
	}
	// Give them time to reach the import (a busy database delays them).
	small := map[string]string{"documents.jsonl": questDocs}
	time.Sleep(time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, prob := r.upload("slow", "quest", small, []string{"documents.jsonl"}, &api.ImportResult{})
		if st == http.StatusTooManyRequests {
			if prob.Field != "files" || !strings.Contains(prob.Detail, "-max-imports-per-user") {
				t.Fatalf("429 without the field and flag: %+v", prob)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a third concurrent upload answered %d %+v, want 429", st, prob)
		}
		time.Sleep(250 * time.Millisecond)
	}
	// Another user imports meanwhile.
	a := e.login("admin")
	if st, prob := a.upload("slow", "quest", small, []string{"documents.jsonl"}, &api.ImportResult{}); st != 200 {
		t.Fatalf("another user: %d %+v", st, prob)
	}
	conns[0].Close() // the client leaves: its import ends
	deadline = time.Now().Add(20 * time.Second)
	for {
		st, prob := r.upload("slow", "quest", small, []string{"documents.jsonl"}, &api.ImportResult{})
		if st == 200 {
			break
		}
		if st != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after one upload ended: %d %+v", st, prob)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
