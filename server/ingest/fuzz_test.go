package ingest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzQuestLine feeds arbitrary lines to the QUEST line parser: it must
// never panic, every rejection must be a *LineError, and every accepted
// query must have valid JSON metadata (Postgres would reject it otherwise).
func FuzzQuestLine(f *testing.F) {
	for _, s := range []string{
		`{"query": "a", "docs": ["x"], "original_query": "<mark>a</mark>", "scores": null, "metadata": {"template": "_"}}`,
		`{"query": "a or b", "docs": [], "original_query": "<mark>a</mark> or <mark>b</mark>", "scores": [NaN, -Infinity], "metadata": {"template": "_ or _"}}`,
		`{"query": "x", "docs": null, "extra": {"k": [1, 2, {"z": "\u00e9"}]}}`,
		`{"title": "t", "text": "x"}`, `{`, `[]`, `{"query": 1}`, `{"query": "a", "docs": ["x"], "metadata": {"template": 3}}`,
		`{"query": "a", "docs": [], "original_query": "<mark><mark>a</mark></mark>"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		obj, err := parseRawObject(line)
		if err != nil {
			return
		}
		if _, isQuery := obj.get("query"); !isQuery {
			return
		}
		q, _, err := parseQuestQuery("f.jsonl", 1, obj)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line != 1 || le.File != "f.jsonl" {
				t.Fatalf("error %v is not a LineError at f.jsonl:1", err)
			}
			return
		}
		if !json.Valid(q.Metadata) || !json.Valid(q.Extra) {
			t.Fatalf("accepted invalid JSON: metadata %s extra %s", q.Metadata, q.Extra)
		}
		if q.Expression != nil && !json.Valid(q.Expression) {
			t.Fatalf("bad expression JSON %s", q.Expression)
		}
	})
}

// FuzzRawObject: the tolerant splitter never panics and agrees with
// encoding/json on every input encoding/json accepts as an object.
func FuzzRawObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1}`, `{"a": [1, {"b": "c\""}], "d": null}`, `{"a": NaN}`, `{"a": 1,}`, `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		obj, err := parseRawObject(line)
		var m map[string]json.RawMessage
		stdErr := json.Unmarshal(line, &m)
		// Duplicate keys are the one thing encoding/json accepts and we refuse.
		if stdErr == nil && m != nil && err != nil && !strings.Contains(err.Error(), "appears twice") {
			t.Fatalf("rejected valid object %q: %v", line, err)
		}
		if err == nil && stdErr == nil && m != nil {
			for k, v := range m {
				got, ok := obj.get(k)
				if !ok {
					t.Fatalf("key %q lost", k)
				}
				if !json.Valid(got) || !jsonEqual(got, v) {
					t.Fatalf("value of %q: %s vs %s", k, got, v)
				}
			}
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
