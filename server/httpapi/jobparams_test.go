package httpapi_test

import (
	"reflect"
	"testing"

	"boolpool/api"
	"boolpool/server/app"
	"boolpool/server/jobs"
	"boolpool/server/reuse"
)

// TestJobParamsKeepWireNames: the domain types of the job parameters and
// results stored in the jobs table (jobs.params, jobs.result) have the JSON
// names of their wire types, field for field and in their nested types, so
// a job stored by an older server (from the wire types) still decodes, and
// the setup page reads a result as the wire type. The reuse reports too:
// boolpool eval reusability|stability --json prints the API's JSON.
func TestJobParamsKeepWireNames(t *testing.T) {
	for _, pair := range []struct{ wire, domain any }{
		{api.PoolSpec{}, jobs.PoolRequest{}},
		{api.PoolPublished{}, jobs.PoolPublished{}},
		{api.RetrieveJobParams{}, jobs.RetrieveParams{}},
		{api.IndexJobParams{}, jobs.IndexParams{}},
		{api.EncodeJobParams{}, app.EncodeParams{}},
		{api.Reusability{}, reuse.ReusabilityReport{}},
		{api.Stability{}, reuse.StabilityReport{}},
	} {
		w, d := jsonNames(reflect.TypeOf(pair.wire), ""), jsonNames(reflect.TypeOf(pair.domain), "")
		if !reflect.DeepEqual(w, d) {
			t.Errorf("%T and %T differ in their JSON names:\n wire   %v\n domain %v", pair.wire, pair.domain, w, d)
		}
	}
}

// jsonNames maps each field path (Go names) of a struct type, nested
// structs, pointers and slices included, to its JSON tag.
func jsonNames(t reflect.Type, prefix string) map[string]string {
	out := map[string]string{}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		out[prefix+f.Name] = f.Tag.Get("json")
		for k, v := range jsonNames(f.Type, prefix+f.Name+".") {
			out[k] = v
		}
	}
	return out
}
