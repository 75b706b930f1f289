package web

import (
	"strings"
	"testing"

	"boolpool/api"
)

// TestQueriesByConfidence: least confident first, queries without a confidence
// last in their original order; the input is left alone.
func TestQueriesByConfidence(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	qs := []api.QueryExpression{
		{ExtID: "a", Confidence: f(0.9)}, {ExtID: "b"}, {ExtID: "c", Confidence: f(0.2)},
		{ExtID: "d"}, {ExtID: "e", Confidence: f(0.5)},
	}
	var got []string
	for _, q := range byConfidence(qs) {
		got = append(got, q.ExtID)
	}
	if strings.Join(got, "") != "ceabd" {
		t.Errorf("order %q, want c e a b d", got)
	}
	if qs[0].ExtID != "a" || qs[2].ExtID != "c" {
		t.Error("byConfidence reordered its input")
	}
	if confidenceText(nil) != "—" || confidenceText(f(0.456)) != "0.46" {
		t.Errorf("confidenceText: %q %q", confidenceText(nil), confidenceText(f(0.456)))
	}
	msg := decomposeMessage(api.DecomposeSummary{Queries: 3, Stored: 3, LowConfidence: 1, ConfidenceThreshold: 0.7})
	if !strings.Contains(msg, "1 below confidence 0.70") {
		t.Errorf("message %q lacks the low-confidence count", msg)
	}
}
