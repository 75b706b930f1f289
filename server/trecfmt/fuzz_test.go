package trecfmt

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReaders feeds arbitrary text to the qrels, run and topics readers:
// they must never panic, and every rejection must be a *LineError.
func FuzzReaders(f *testing.F) {
	for _, s := range []string{
		"q1 0 d1 1\nq1 0 d2 0\n", "q1 Q0 d1 1 2.5 run\n", "<top>\n<num> Number: 1\n<title> t\n</top>\n",
		"1\ttext\n", "q1 0 d1\n", "q1 Q0 d1 x y run\n", "<top><num>", "# comment\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(err error) {
			var le *LineError
			if err != nil && !errors.Is(err, io.EOF) && !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not a *LineError", err, err)
			}
		}
		_, err := ReadQrels(context.Background(), strings.NewReader(s), "f")
		check(err)
		_, err = ReadRun(context.Background(), strings.NewReader(s), "f")
		check(err)
		_, err = ReadTopics(context.Background(), strings.NewReader(s), "f")
		check(err)
	})
}
