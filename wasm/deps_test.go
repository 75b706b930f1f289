package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// deps lists the packages a package imports, transitively, when built for
// the browser.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", pkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// TestWasmDependencyGraph keeps the browser build free of the server's
// heavy dependencies: the database driver, the HTTP framework, ONNX Runtime
// (cgo), the job queue (River), and boolpool's server-only packages.
func TestWasmDependencyGraph(t *testing.T) {
	forbidden := []string{
		"github.com/jackc/pgx",
		"github.com/labstack/echo",
		"github.com/yalue/onnxruntime_go",
		"github.com/riverqueue/river",
		"runtime/cgo",
		"boolpool/server/store",
		"boolpool/server/httpapi",
		"boolpool/server/judging",
		"boolpool/server/auth",
		"boolpool/server/jobs",
		"boolpool/encoders",
	}
	all := deps(t, "boolpool/wasm")
	if len(all) < 10 {
		t.Fatalf("suspiciously few dependencies: %v", all)
	}
	for _, d := range all {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("the wasm build depends on %s", d)
			}
		}
	}
}

// TestWireTypesAreLeaf keeps api a leaf: the standard library, the
// Boolean query model and the shared vocabulary (constants) only.
func TestWireTypesAreLeaf(t *testing.T) {
	for _, d := range deps(t, "boolpool/api") {
		if strings.Contains(strings.Split(d, "/")[0], ".") {
			t.Errorf("api depends on third-party package %s", d)
		}
		if strings.HasPrefix(d, "boolpool/") && d != "boolpool/api" && d != "boolpool/server/boolexpr" && d != "boolpool/server/vocab" {
			t.Errorf("api depends on %s", d)
		}
	}
}
