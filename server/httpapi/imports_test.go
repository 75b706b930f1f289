package httpapi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundaries keeps the layering of ARCHITECTURE.md: the HTTP
// layer reaches neither the encoders (cgo) nor the bench and load tools,
// and the judgment flow runs one way, judging → consensus → live/export,
// wired by cmd/boolpool rather than by imports.
func TestImportBoundaries(t *testing.T) {
	rules := map[string][]string{
		"boolpool/server/httpapi":   {"boolpool/encoders", "boolpool/server/devtools", "github.com/yalue/onnxruntime_go"},
		"boolpool/server/judging":   {"boolpool/server/consensus", "boolpool/server/live", "boolpool/server/export", "boolpool/server/httpapi"},
		"boolpool/server/consensus": {"boolpool/server/live", "boolpool/server/export", "boolpool/server/httpapi"},
		"boolpool/server/export":    {"boolpool/server/live", "boolpool/server/httpapi"},
		"boolpool/server/live":      {"boolpool/server/export", "boolpool/server/httpapi"},
	}
	for pkg, forbidden := range rules {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("%s: suspiciously few dependencies: %v", pkg, deps)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
}
