package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestImportJSONArrayPrintsIgnoredFields: `boolpool import` reads a
// BoolQuestions file that is one pretty-printed JSON array, imports its
// passages (documents, qrels, explicit negatives) and prints the fields
// it did not import.
func TestImportJSONArrayPrintsIgnoredFields(t *testing.T) {
	c := newCLITest(t)
	ctx, db := c.ctx, c.db
	var out, errb bytes.Buffer
	content := "[\n  {\n    \"qid\": \"q1\",\n    \"question\": \"owls but not barn owls\",\n    \"question_type\": \"not\",\n" +
		"    \"answers\": [],\n    \"positive_passages\": [{\"docid\": \"d1\", \"title\": \"Snowy owl\", \"text\": \"It is white.\", \"score\": NaN}],\n" +
		"    \"negative_passages\": [{\"docid\": \"d2\", \"title\": \"Barn owl\", \"text\": \"It nests in barns.\"}]\n  }\n]\n"
	path := c.write("boolquestions.json", content)
	if code := run(ctx, []string{"import", "--database-url", db, "--project", "bq", "--format", "boolq", path}, &out, &errb); code != 0 {
		t.Fatalf("import exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		path + ": queries (boolq): 2 documents, 1 queries, 2 qrels",
		`ignored fields (present, not imported): "answers" (1 record), "positive_passages[].score" (1 record)`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("stdout %q lacks %q", out.String(), want)
		}
	}
	if !strings.Contains(errb.String(), "1 positive (qrels), 1 explicit negative") {
		t.Fatalf("stderr %q lacks the passages note", errb.String())
	}
}
