package main

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

func TestAgreeJSON(t *testing.T) {
	out, _, err := runCmd(t, runAgree, "--ratings", "testdata/agree/ratings.json", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	got := map[string]*float64{}
	for k, v := range raw {
		var f *float64
		if json.Unmarshal(v, &f) == nil {
			got[k] = f
		}
	}
	var per []struct {
		Rater int      `json:"rater"`
		Items int      `json:"items"`
		Kappa *float64 `json:"cohen_kappa_mean"`
	}
	if err := json.Unmarshal(raw["per_rater"], &per); err != nil || len(per) != 2 || per[0].Items != 6 || per[1].Items != 5 ||
		per[0].Kappa == nil || math.Abs(*per[0].Kappa-6.0/11) > 1e-12 {
		t.Errorf("per_rater = %s (%v)", raw["per_rater"], err)
	}
	// Items (2,2) (2,2) (2,2) (0,2) (0,0) (2,–), worked by hand:
	// Fleiss over the 5 complete items: P̄ = .8, p = (.3,.7), P̄e = .58 → 11/21.
	// Krippendorff: o00 = 2, o22 = 6, o02 = o20 = 1, n = 10 → 1 − 9·2/42 = 4/7
	// (ordinal equals nominal with two values).
	// Gwet (Q = 4): pa = .8; π_2 = 4.5/6, π_0 = 1.5/6 → pe = .125 → 27/35.
	// Unanimous after binarising: 4 of the 5 items with two ratings.
	want := map[string]float64{
		"fleiss_kappa":               11.0 / 21,
		"krippendorff_alpha_nominal": 4.0 / 7,
		"krippendorff_alpha_ordinal": 4.0 / 7,
		"gwet_ac1":                   27.0 / 35,
		"unanimous_binarised":        0.8,
		"cohen_kappa_mean":           6.0 / 11,
		"items":                      6,
		"fleiss_items":               5,
	}
	for k, w := range want {
		v := got[k]
		if v == nil || math.Abs(*v-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, v, w)
		}
	}
}

func TestAgreeUndefinedIsNull(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/r.json"
	writeFile(t, path, `{"items": [[1, null], [null, 3]]}`)
	out, _, err := runCmd(t, runAgree, "--ratings", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"fleiss_kappa": null`) || !strings.Contains(out, `"unanimous_binarised": null`) {
		t.Fatalf("undefined values not null:\n%s", out)
	}
}

func TestAgreeSummaryAndErrors(t *testing.T) {
	out, _, err := runCmd(t, runAgree, "--ratings", "testdata/agree/ratings.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fleiss_kappa                0.5238") || !strings.Contains(out, "gwet_ac1                    0.7714") {
		t.Fatalf("summary:\n%s", out)
	}
	_, _, err = runCmd(t, runAgree, "--ratings", "testdata/agree/bad_label.json")
	if err == nil || !strings.Contains(err.Error(), "items[1][0]: label 4 is not an integer 0–3 or null") {
		t.Fatalf("bad label: %v", err)
	}
	if _, _, err := runCmd(t, runAgree); err == nil {
		t.Fatal("missing --ratings accepted")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
