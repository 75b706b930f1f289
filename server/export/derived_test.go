package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/export"
	"boolpool/server/store/storetest"
)

// TestDerivedExports: qrels-derived marks every label's source, leaves
// unknown pairs out; quest-variants writes the variants with their derived
// docs, template and source query.
func TestDerivedExports(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := gamesXlibProject(t, st, "derived", nil,
		atomLabel{"games", "chess", "yes"}, atomLabel{"games", "xvier", "yes"}, atomLabel{"games", "go", "unsure"},
		atomLabel{"xlib", "xvier", "yes"}, atomLabel{"xlib", "chess", "no"}, atomLabel{"xlib", "xterm", "yes"})
	if _, err := atoms.GenerateVariants(ctx, st, pid); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c, err := export.Write(ctx, st, pid, "qrels-derived", &b, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// q1 = games AND xlib: chess 0, xvier 1; xterm (games unjudged) and go
	// (unsure) unknown. Variants: A|B, A&!B, B&!A.
	want := strings.Join([]string{
		"q1\t0\tchess\t0\tderived", "q1\t0\txvier\t1\tderived",
		"q1~A|B\t0\tchess\t1\tderived", "q1~A|B\t0\txterm\t1\tderived", "q1~A|B\t0\txvier\t1\tderived",
		"q1~A&!B\t0\tchess\t1\tderived", "q1~A&!B\t0\txterm\t0\tderived", "q1~A&!B\t0\txvier\t0\tderived",
		"q1~B&!A\t0\tchess\t0\tderived", "q1~B&!A\t0\txvier\t0\tderived",
	}, "\n") + "\n"
	if b.String() != want {
		t.Fatalf("qrels-derived:\n%s\nwant\n%s", b.String(), want)
	}
	if c.Qrels != 10 || c.Queries != 4 {
		t.Fatalf("counts %+v", c)
	}
	b.Reset()
	if _, err := export.Write(ctx, st, pid, "quest-variants", &b, export.Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d variant lines:\n%s", len(lines), b.String())
	}
	var v struct {
		Query         string   `json:"query"`
		Docs          []string `json:"docs"`
		OriginalQuery string   `json:"original_query"`
		Metadata      struct {
			Template       string `json:"template"`
			VariantOf      string `json:"variant_of"`
			SourceTemplate string `json:"source_template"`
			DocsSource     string `json:"docs_source"`
			DocsUnknown    int    `json:"docs_unknown"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &v); err != nil {
		t.Fatal(err)
	}
	if v.Query != "board games or Xlib programs" || strings.Join(v.Docs, ",") != "chess,xterm,xvier" || v.Metadata.Template != boolexpr.TemplateOr2 ||
		v.Metadata.VariantOf != "q1" || v.Metadata.SourceTemplate != boolexpr.TemplateAnd2 || v.Metadata.DocsSource != "derived" || v.Metadata.DocsUnknown != 1 ||
		v.OriginalQuery != "<mark>board games</mark> or <mark>Xlib programs</mark>" {
		t.Fatalf("variant line: %s", lines[0])
	}
}
