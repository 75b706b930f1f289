package api

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSampleStrata(t *testing.T) {
	got, err := ParseSampleStrata(" 1-10:1, 11-100:0.2,101-1000:0.05 ")
	want := []SampleStratum{{1, 10, 1}, {11, 100, 0.2}, {101, 1000, 0.05}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("parse = %v, %v", got, err)
	}
	if s := FormatSampleStrata(got); s != "1-10:1,11-100:0.2,101-1000:0.05" {
		t.Errorf("format = %q", s)
	}
	if got, err := ParseSampleStrata(""); err != nil || got != nil {
		t.Errorf("empty = %v, %v", got, err)
	}
	for _, bad := range []string{"1-10", "1:0.5", "a-10:1", "1-10:x"} {
		if _, err := ParseSampleStrata("1-5:1," + bad); err == nil || !strings.Contains(err.Error(), "stratum 2") {
			t.Errorf("%q: %v, want an error naming stratum 2", bad, err)
		}
	}
	b, r, err := ParseSampleCorpus("1000:0.02,10000:0.005")
	if err != nil || !reflect.DeepEqual(b, []int{1000, 10000}) || !reflect.DeepEqual(r, []float64{0.02, 0.005}) {
		t.Errorf("corpus = %v %v %v", b, r, err)
	}
	if _, _, err := ParseSampleCorpus("1000"); err == nil || !strings.Contains(err.Error(), "BOUND:RATE") {
		t.Errorf("bad corpus: %v", err)
	}
}
