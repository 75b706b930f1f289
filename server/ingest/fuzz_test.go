package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"boolpool/server/decompose"
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
		// Repeated keys and high expansion (issue 29).
		`{"query": "a", "docs": [` + strings.Repeat(`"x", `, 2000) + `"x"]}`,
		`{"query": "a", "docs": ["x"], "docs": ["y"]}`,
		`{"query": "a", "docs": [], "original_query": "` + strings.Repeat("<mark>a</mark> or ", 30) + `<mark>b</mark>"}`,
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
		if len(q.AnswerDocs) > MaxRecordElements || len(q.Atoms) > decompose.MaxAtoms || decompose.CheckQuery(q.Text) != "" {
			t.Fatalf("accepted a query over the bounds: %d docs, %d atoms, %d bytes of text", len(q.AnswerDocs), len(q.Atoms), len(q.Text))
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
	// Numbers are compared as written (json.Number): a valid literal out
	// of float64's range, such as 1e700, is still the same value.
	decode := func(raw []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	x, errX := decode(a)
	y, errY := decode(b)
	if errX != nil || errY != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// FuzzEachJSON drives the shared JSON lines / JSON array reader alone:
// no panic; a rejection is a *LineError naming the file and a line of
// it; and whenever encoding/json reads the input as one array, the
// reader hands on exactly its elements, in order.
func FuzzEachJSON(f *testing.F) {
	for _, s := range []string{
		"[]", "[{}]", `[{"a": 1}, {"b": [1, {"c": "]"}]}]`, "[\n  {\n    \"a\": NaN\n  },\n  {\"b\": \"x\\\"]\"}\n]\n",
		"\xef\xbb\xbf[1, 2.5e3, true, null, \"s\"]", "[1,]", "[{\"a\": 1}] x", "{\"a\": 1}\n{\"b\": 2}\n", "[\n{\"a\": \"\xff\"}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := openInput(path, Options{MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		var got [][]byte
		err = in.eachJSON(func(rec jsonRecord) error {
			if len(rec.Raw) == 0 || rec.Line < 1 {
				t.Fatalf("record %+v", rec)
			}
			got = append(got, append([]byte(nil), rec.Raw...))
			return nil
		})
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.File != path || le.Line < 1 || le.Line > lines {
				t.Fatalf("error %v (%T) names no line of the %d-line file", err, err, lines)
			}
		}
		var want []json.RawMessage
		trimmed := bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("\xef\xbb\xbf"))
		if !bytes.HasPrefix(bytes.TrimLeft(trimmed, " \t\r\n"), []byte("[")) || json.Unmarshal(data, &want) != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "longer than") || strings.Contains(err.Error(), "NUL") {
				return
			}
			t.Fatalf("valid array %q refused: %v", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d, from %q", len(got), len(want), data)
		}
		for i := range want {
			if !jsonEqual(got[i], want[i]) {
				t.Fatalf("element %d: %s, want %s", i, got[i], want[i])
			}
		}
	})
}

// FuzzOneLine: putting a JSON value on one line keeps it the same value
// and leaves no line break.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"[\n  1,\n  2\n]", "{\n \"a\": \"x\\ny\",\n \"b\": [ ]\n}", "\"a\"", "{\"a\": 1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got := oneLine(raw)
		if !json.Valid(got) || !jsonEqual(got, raw) || bytes.ContainsAny(got, "\r\n") {
			t.Fatalf("oneLine(%q) = %q", raw, got)
		}
	})
}
