package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
)

func TestDecomposeJSONArgument(t *testing.T) {
	var out, errb bytes.Buffer
	err := decomposeMain(context.Background(),
		[]string{"--json", "Cetaceans that are also Prehistoric mammals excluding Miocene mammals"},
		strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errb.String())
	}
	var got struct {
		Template   string          `json:"template"`
		Expression json.RawMessage `json:"expression"`
		Atoms      []string        `json:"atoms"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if got.Template != boolexpr.TemplateAndNot {
		t.Errorf("template = %q", got.Template)
	}
	if strings.Join(got.Atoms, "|") != "Cetaceans|Prehistoric mammals|Miocene mammals" {
		t.Errorf("atoms = %q", got.Atoms)
	}
	e, err := boolexpr.ParseJSON(got.Expression, len(got.Atoms))
	if err != nil {
		t.Fatal(err)
	}
	if e.String() != "(A AND B) AND NOT C" {
		t.Errorf("expression = %s", e)
	}
}

func TestDecomposeStdin(t *testing.T) {
	in := "Fish of Bolivia but not of Brazil\n\nBirds of Saint Lucia, Dominica, or Guadeloupe\n"
	var out bytes.Buffer
	if err := decomposeMain(context.Background(), []string{"--json", "--echo"}, strings.NewReader(in), &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2 (blank input lines skipped):\n%s", len(lines), out.String())
	}
	want := []struct{ query, template, atoms string }{
		{"Fish of Bolivia but not of Brazil", boolexpr.TemplateNot, "Fish of Bolivia|Fish of Brazil"},
		{"Birds of Saint Lucia, Dominica, or Guadeloupe", boolexpr.TemplateOr3, "Birds of Saint Lucia|Birds of Dominica|Birds of Guadeloupe"},
	}
	for i, l := range lines {
		var got struct {
			Query    string   `json:"query"`
			Template string   `json:"template"`
			Atoms    []string `json:"atoms"`
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d %q: %v", i+1, l, err)
		}
		if got.Query != want[i].query || got.Template != want[i].template || strings.Join(got.Atoms, "|") != want[i].atoms {
			t.Errorf("line %d = %+v, want %+v", i+1, got, want[i])
		}
	}
}

func TestDecomposeText(t *testing.T) {
	var out bytes.Buffer
	if err := decomposeMain(context.Background(), []string{"Novels", "set", "in", "Vietnam", "but", "not", "about", "disasters"}, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	want := "Novels set in Vietnam but not about disasters\t_ that are not _\t\"Novels set in Vietnam\" AND NOT \"Novels about disasters\"\n"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}

func TestDecomposeEval(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.jsonl")
	data := `{"query": "Fish of Bolivia but not of Brazil", "original_query": "<mark>Fish of Bolivia</mark> that are not <mark>Fish of Brazil</mark>", "metadata": {"template": "_ that are not _"}}
{"query": "Trees of Guerrero", "original_query": "<mark>Trees of Guerrero</mark> or <mark>Trees of the State of Mexico</mark>", "metadata": {"template": "_ or _"}}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := decomposeMain(context.Background(), []string{"--eval", path}, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"all", "tmpl_acc", "confusion"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if rep := evalJSON(t, "--eval", path); rep.N != 2 || rep.TemplateAccuracy != 0.5 {
		t.Errorf("report = %+v, want n=2 accuracy 0.5", rep)
	}
}

func TestDecomposeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"query\": \"x\", \"original_query\": \"<mark>x\", \"metadata\": {\"template\": \"_\"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		usage bool
		msg   string
	}{
		{[]string{"--nope"}, true, "flag provided but not defined"},
		{[]string{"--eval", bad, "query"}, true, "no query argument"},
		{[]string{"--eval", filepath.Join(dir, "missing.jsonl")}, false, "no such file"},
		{[]string{"--eval", bad}, false, "line 1"},
	}
	for _, tc := range tests {
		err := decomposeMain(context.Background(), tc.args, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil {
			t.Errorf("%q: no error", tc.args)
			continue
		}
		if errors.Is(err, errUsage) != tc.usage || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err = %v (usage %v), want usage=%v containing %q", tc.args, err, errors.Is(err, errUsage), tc.usage, tc.msg)
		}
	}
	// Through the command table: usage errors exit 2.
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"decompose", "--bogus"}, &bytes.Buffer{}, &errb); code != 2 {
		t.Errorf("exit code %d, want 2 (%s)", code, errb.String())
	}
}

// TestDecomposeTrain trains a model on a small QUEST-format file, checks
// the printed held-out table and the model file, and evaluates the model
// on its own held-out split with --eval --held-out --model.
func TestDecomposeTrain(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	places := []string{"Peru", "Chile", "Bolivia", "Brazil", "Ghana", "Kenya", "Chad", "Niger", "Mali", "Togo", "Benin", "Laos", "Nepal", "Fiji", "Samoa", "Tonga"}
	for i, p := range places {
		q := places[(i+1)%len(places)]
		lines = append(lines,
			`{"query": "Birds of `+p+` or `+q+`", "original_query": "<mark>Birds of `+p+`</mark> or <mark>Birds of `+q+`</mark>", "metadata": {"template": "_ or _"}}`,
			`{"query": "Fish of `+p+` but not of `+q+`", "original_query": "<mark>Fish of `+p+`</mark> that are not <mark>Fish of `+q+`</mark>", "metadata": {"template": "_ that are not _"}}`,
			`{"query": "Trees of `+p+`", "original_query": "<mark>Trees of `+p+`</mark>", "metadata": {"template": "_"}}`)
	}
	quest := filepath.Join(dir, "quest.jsonl")
	if err := os.WriteFile(quest, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json.gz")
	var out bytes.Buffer
	if err := decomposeMain(context.Background(), []string{"train", "--quest", quest, "--out", model, "--eval-percent", "30"}, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"trained on", "held out", "wrote " + model, "\nmodel ", "\nrules "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("train output lacks %q:\n%s", want, out.String())
		}
	}
	m, err := readModelFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Training.EvalPercent != 30 || m.Training.QuestHeldOut == 0 || m.Training.QuestTrain+m.Training.QuestHeldOut != len(lines) {
		t.Errorf("training info %+v", m.Training)
	}
	if rep := evalJSON(t, "--eval", quest, "--held-out", "--model", model); rep.N != m.Training.QuestHeldOut || rep.TemplateAccuracy != m.Training.Eval.All.TemplateAccuracy {
		t.Errorf("--held-out eval n=%d acc=%.3f; the model recorded n=%d acc=%.3f", rep.N, rep.TemplateAccuracy, m.Training.QuestHeldOut, m.Training.Eval.All.TemplateAccuracy)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"train", "--out", model}, "--quest is required"},
		{[]string{"train", "--quest", quest}, "--out is required"},
		{[]string{"train", "--quest", quest, "--out", model, "--eval-percent", "0"}, "--eval-percent"},
		{[]string{"--held-out", "x"}, "--held-out needs --eval"},
		{[]string{"--rules", "--model", model, "x"}, "not both"},
	} {
		err := decomposeMain(context.Background(), tc.args, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err = %v, want a usage error containing %q", tc.args, err, tc.msg)
		}
	}
	if err := decomposeMain(context.Background(), []string{"--model", filepath.Join(dir, "none.gz"), "x"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("missing model file: err = %v", err)
	}
}

// evalReport is the part of `decompose --eval --json`'s report the tests read.
type evalReport struct {
	N                int     `json:"n"`
	TemplateAccuracy float64 `json:"template_accuracy"`
}

// evalJSON runs `decompose args... --json` and decodes its report.
func evalJSON(t *testing.T, args ...string) evalReport {
	t.Helper()
	var out bytes.Buffer
	if err := decomposeMain(context.Background(), append(args, "--json"), nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
