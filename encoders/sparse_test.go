package encoders

import (
	"context"
	"errors"
	"math"
	"testing"
)

func TestLexical(t *testing.T) {
	tok, err := LoadTokenizer("")
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"birds of the andes", "birds of colombia", "the the the fish"}
	stats := CollectTermStats(tok, docs)
	plain, err := NewLexical(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := NewLexical(tok, &stats)
	if err != nil {
		t.Fatal(err)
	}
	id := func(s string) int32 { return tok.Tokenize(s)[0] }
	ctx := context.Background()
	tests := []struct {
		name    string
		enc     *Lexical
		query   bool
		text    string
		term    string
		want    float64
		present bool
	}{
		{"log tf", plain, false, "the the the fish", "the", math.Log(4), true},
		{"punctuation dropped", plain, false, "birds, fish!", ",", 0, false},
		{"query saturation", plain, true, "fish fish", "fish", 2.2 * 2 / 3.2, true},
		{"idf rare", weighted, false, "fish", "fish", math.Log(1+2.5/1.5) * math.Log(2), true},
		{"idf common", weighted, false, "birds", "birds", math.Log(1+1.5/2.5) * math.Log(2), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var vs []SparseVector
			var err error
			if tc.query {
				vs, err = tc.enc.EncodeQueries(ctx, []string{tc.text})
			} else {
				vs, err = tc.enc.EncodeDocuments(ctx, []string{tc.text})
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := vs[0].Map()[id(tc.term)]
			if ok != tc.present || math.Abs(float64(got)-tc.want) > 1e-5 {
				t.Errorf("weight of %q = %v (present %v), want %v (present %v)", tc.term, got, ok, tc.want, tc.present)
			}
		})
	}
	a, _ := plain.EncodeDocuments(ctx, []string{"birds of the andes"})
	b, _ := plain.EncodeDocuments(ctx, []string{"andes birds"})
	if d := a[0].Dot(b[0]); math.Abs(d-2*math.Log(2)*math.Log(2)) > 1e-6 {
		t.Errorf("dot = %v", d)
	}
}
