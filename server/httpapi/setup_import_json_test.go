package httpapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"boolpool/api"
)

// TestUploadJSONArrayReportsIgnoredFields: an uploaded NevIR file that is
// one pretty-printed JSON array imports, and the result names the fields
// that were not imported with how many records had them; a bad element is
// a 400 naming the line it starts on and the field.
func TestUploadJSONArrayReportsIgnoredFields(t *testing.T) {
	e := newSetupEnv(t)
	r := e.login("researcher")
	var pv api.ProjectView
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "neg", Title: "Negation"}, &pv); st != http.StatusCreated {
		t.Fatalf("create: %d %+v", st, pv)
	}
	pairs := "[\n  {\"id\": \"n1\", \"version\": 2,\n   \"q1\": \"not frozen\", \"q2\": \"frozen\", \"doc1\": \"Open water.\", \"doc2\": \"Ice.\"},\n" +
		"  {\"id\": \"n2\", \"version\": 2,\n   \"q1\": \"who did not sign\", \"q2\": \"who signed\", \"doc1\": \"Ann refused.\", \"doc2\": \"Ann signed.\"}\n]\n"
	var res api.ImportResult
	if st, prob := r.upload("neg", "nevir", map[string]string{"pairs.json": pairs}, []string{"pairs.json"}, &res); st != 200 {
		t.Fatalf("upload: %d %+v", st, prob)
	}
	if len(res.Files) != 1 || res.Files[0].Queries != 4 || !reflect.DeepEqual(res.Files[0].Ignored, map[string]int{"version": 2}) {
		t.Fatalf("import result %+v", res)
	}
	bad := strings.Replace(pairs, `"doc2": "Ann signed."`, `"doc2": 5`, 1)
	st, prob := r.upload("neg", "nevir", map[string]string{"bad.json": bad}, []string{"bad.json"}, nil)
	if st != http.StatusBadRequest || prob.Field != "bad.json:4:doc2" || !strings.Contains(prob.Detail, "array element 2") {
		t.Fatalf("bad upload: %d %+v", st, prob)
	}
}
