package strictjson

import (
	"errors"
	"testing"

	"boolpool/server/apperr"
)

type params struct {
	Depth int    `json:"depth"`
	Name  string `json:"name"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		raw, field, wantField, wantReason string
	}{
		{`{"depth":3,"bogus":1}`, "params", "params.bogus", "unknown field"},
		{`{"depth":"x"}`, "params", "params.depth", "must be int"},
		{`{"depth":3} {}`, "params", "params", "trailing data after the JSON object"},
		{`{"depth":`, "body", "body", ""},
		{`{"name":"a\u0000b"}`, "body", "body", "contains a NUL character (\\u0000), which no text field can hold"},
		{`{"bogus":1}`, "body", "bogus", "unknown field"},
		{``, "body", "body", "empty; a JSON object is required"},
	}
	for _, tc := range tests {
		var p params
		err := Decode([]byte(tc.raw), tc.field, &p)
		var inv *apperr.Invalid
		if !errors.As(err, &inv) {
			t.Errorf("Decode(%q): %v, want *apperr.Invalid", tc.raw, err)
			continue
		}
		if inv.Field != tc.wantField || (tc.wantReason != "" && inv.Reason != tc.wantReason) {
			t.Errorf("Decode(%q) = %q: %q, want %q: %q", tc.raw, inv.Field, inv.Reason, tc.wantField, tc.wantReason)
		}
	}
}

func TestParamsEmptyIsDefaults(t *testing.T) {
	p := params{Depth: 7}
	if err := Params(nil, &p); err != nil || p.Depth != 7 {
		t.Fatalf("Params(nil) = %v, %+v; want no error and the value untouched", err, p)
	}
	if err := Params([]byte(`{"depth":2,"name":"x"}`), &p); err != nil || p.Depth != 2 || p.Name != "x" {
		t.Fatalf("Params = %v, %+v", err, p)
	}
}
