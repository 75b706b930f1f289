package trecfmt

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadQrels(t *testing.T) {
	in := "# comment\nq1 0 d1 2\n\nq1\t0  d2   0\nq2 0 d3 -1\nq2 0 d4 3.0\n"
	got, err := ReadQrels(context.Background(), strings.NewReader(in), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []Qrel{
		{"q1", "0", "d1", 2}, {"q1", "0", "d2", 0}, {"q2", "0", "d3", -1}, {"q2", "0", "d4", 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestReadQrelsErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     LineError
	}{
		{"three fields", "q1 0 d1 1\nq1 0 d2\n", LineError{"q.txt", 2, "", "want 4 fields (qid iter docid rel), got 3"}},
		{"five fields", "q1 0 d1 1 x\n", LineError{"q.txt", 1, "", "want 4 fields (qid iter docid rel), got 5"}},
		{"rel not a number", "\n\nq1 0 d1 high\n", LineError{"q.txt", 3, "rel", `"high" is not an integer relevance grade`}},
		{"fractional rel", "q1 0 d1 0.5\n", LineError{"q.txt", 1, "rel", `"0.5" is not an integer relevance grade`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadQrels(context.Background(), strings.NewReader(tc.in), "q.txt")
			checkLineError(t, err, tc.want)
		})
	}
}

func TestLineErrorMessage(t *testing.T) {
	e := &LineError{File: "run.txt", Line: 7, Field: "score", Reason: `"x" is not a number`}
	if got, want := e.Error(), `run.txt:7: field score: "x" is not a number`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	e.Field = ""
	if got, want := e.Error(), `run.txt:7: "x" is not a number`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReadRun(t *testing.T) {
	in := "q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 -3e-2 bm25 extra fields\n# x\n\nq2 Q0 d9 1 7 bm25\n"
	got, err := ReadRun(context.Background(), strings.NewReader(in), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []RunLine{
		{"q1", "Q0", "d1", 1, 12.5, "bm25"},
		{"q1", "Q0", "d2", 2, -0.03, "bm25"},
		{"q2", "Q0", "d9", 1, 7, "bm25"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     LineError
	}{
		{"missing tag", "q1 Q0 d1 1 2.0\n", LineError{"r.txt", 1, "", "want 6 fields (qid Q0 docid rank score tag), got 5"}},
		{"bad rank", "q1 Q0 d1 1 2 t\nq1 Q0 d2 first 1 t\n", LineError{"r.txt", 2, "rank", `"first" is not an integer`}},
		{"bad score", "q1 Q0 d1 1 2,5 t\n", LineError{"r.txt", 1, "score", `"2,5" is not a number`}},
		{"nan score", "q1 Q0 d1 1 NaN t\n", LineError{"r.txt", 1, "score", `"NaN" is not a number`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRun(context.Background(), strings.NewReader(tc.in), "r.txt")
			checkLineError(t, err, tc.want)
		})
	}
}

func TestWriteQrelsAndRunBytes(t *testing.T) {
	ctx := context.Background()
	var b bytes.Buffer
	err := WriteQrels(ctx, &b, []Qrel{{QueryID: "q1", DocID: "d1", Rel: 3}, {QueryID: "q1", Iter: "0", DocID: "d2", Rel: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "q1 0 d1 3\nq1 0 d2 0\n"; got != want {
		t.Fatalf("qrels: got %q, want %q", got, want)
	}
	b.Reset()
	err = WriteRun(ctx, &b, []RunLine{
		{QueryID: "q1", DocID: "d1", Rank: 1, Score: 12.5, Tag: "bm25"},
		{QueryID: "q1", Iter: "Q0", DocID: "d2", Rank: 2, Score: 0.1, Tag: "bm25"},
		{QueryID: "q1", DocID: "d3", Rank: 3, Score: -1e-20, Tag: "bm25"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 0.1 bm25\nq1 Q0 d3 3 -1e-20 bm25\n"; got != want {
		t.Fatalf("run: got %q, want %q", got, want)
	}
	if err := WriteRun(ctx, &b, []RunLine{{QueryID: "q 1", DocID: "d", Tag: "t"}}); err == nil {
		t.Fatal("qid with a space was written")
	}
}

func TestRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	in := "301 Q0 FBIS3-1 1 0.123456789012345 run-a\n301 Q0 FBIS3-2 2 0.1 run-a\n"
	lines, err := ReadRun(ctx, strings.NewReader(in), "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRun(ctx, &b, lines); err != nil {
		t.Fatal(err)
	}
	if b.String() != in {
		t.Fatalf("round trip: got %q, want %q", b.String(), in)
	}
}

const sgmlTopics = `<top>

<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in
international criminal activity.

<narr> Narrative:
A relevant document must identify the organization.

</top>

<top>
<num> 302 </num>
<title> Topic: birds of the Andes but not of Colombia </title>
</top>
`

func TestReadTopicsSGML(t *testing.T) {
	got, err := ReadTopics(context.Background(), strings.NewReader(sgmlTopics), "t.sgml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Topic{
		{ID: "301", Title: "International Organized Crime",
			Description: "Identify organizations that participate in international criminal activity.",
			Narrative:   "A relevant document must identify the organization."},
		{ID: "302", Title: "birds of the Andes but not of Colombia"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestTopicsSGMLRoundTrip(t *testing.T) {
	ctx := context.Background()
	topics := []Topic{
		{ID: "301", Title: "International Organized Crime", Description: "Identify organizations.", Narrative: "Must name one."},
		{ID: "302", Title: "birds"},
	}
	var b bytes.Buffer
	if err := WriteTopics(ctx, &b, topics); err != nil {
		t.Fatal(err)
	}
	want := "<top>\n\n<num> Number: 301\n<title> International Organized Crime\n\n<desc> Description:\nIdentify organizations.\n\n<narr> Narrative:\nMust name one.\n\n</top>\n\n" +
		"<top>\n\n<num> Number: 302\n<title> birds\n\n</top>\n\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
	back, err := ReadAnyTopics(ctx, strings.NewReader(b.String()), "t")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, topics) {
		t.Fatalf("round trip: got %+v", back)
	}
}

func TestReadTopicsErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     LineError
	}{
		{"text outside top", "hello\n<top>\n", LineError{"t", 1, "", `text "hello" outside <top>`}},
		{"unterminated", "<top>\n<num> 1\n<title> x\n", LineError{"t", 3, "", "end of file inside the <top> opened on line 1"}},
		{"nested", "<top>\n<num> 1\n<top>\n", LineError{"t", 3, "", "<top> inside the <top> opened on line 1"}},
		{"no number", "<top>\n<title> x\n</top>\n", LineError{"t", 1, "num", "topic has no number"}},
		{"two titles", "<top>\n<num> 1\n<title> x\n<title> y\n</top>\n", LineError{"t", 4, "title", "second <title> in the topic opened on line 1"}},
		{"duplicate id", "<top>\n<num> 1\n</top>\n<top>\n<num> 1\n</top>\n", LineError{"t", 6, "num", `topic "1" already defined on line 3`}},
		{"stray close", "</top>\n", LineError{"t", 1, "", "</top> without <top>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTopics(context.Background(), strings.NewReader(tc.in), "t")
			checkLineError(t, err, tc.want)
		})
	}
}

func TestTSVTopics(t *testing.T) {
	ctx := context.Background()
	in := "q1\tbirds of Venezuela but not Colombia\n\nq2\tupper abdomen pain\n"
	got, err := ReadAnyTopics(ctx, strings.NewReader(in), "t.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Topic{{ID: "q1", Title: "birds of Venezuela but not Colombia"}, {ID: "q2", Title: "upper abdomen pain"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	var b bytes.Buffer
	if err := WriteTSVTopics(ctx, &b, got); err != nil {
		t.Fatal(err)
	}
	if b.String() != strings.Replace(in, "\n\n", "\n", 1) {
		t.Fatalf("write: got %q", b.String())
	}

	errs := []struct {
		name, in string
		want     LineError
	}{
		{"no tab", "q1 birds\n", LineError{"t.tsv", 1, "", "no tab between qid and text"}},
		{"empty text", "q1\t \n", LineError{"t.tsv", 1, "text", "empty query text"}},
		{"empty id", "\tbirds\n", LineError{"t.tsv", 1, "qid", `"" is not a query id`}},
		{"duplicate", "q1\ta\nq1\tb\n", LineError{"t.tsv", 2, "qid", `topic "q1" already defined on line 1`}},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTSVTopics(ctx, strings.NewReader(tc.in), "t.tsv")
			checkLineError(t, err, tc.want)
		})
	}
}

// checkLineError fails t unless err is a *LineError equal to want.
func checkLineError(t *testing.T, err error, want LineError) {
	t.Helper()
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LineError", err)
	}
	if *le != want {
		t.Fatalf("got %+v, want %+v", *le, want)
	}
}
