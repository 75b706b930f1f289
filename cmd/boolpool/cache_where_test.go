package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/encoders"
)

// TestCacheFoundFromBinary builds bin/boolpool into a scratch checkout
// whose .cache holds the ONNX Runtime library and runs it from another
// working directory without BOOLPOOL_CACHE: the library is found next to
// the binary (bin/boolpool → ../.cache), not under the working directory.
func TestCacheFoundFromBinary(t *testing.T) {
	lib := encoders.DefaultConfig().LibraryPath
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("ONNX Runtime is not installed (%s): run make deps", lib)
	}
	ctx := context.Background()
	co := t.TempDir()
	if err := os.WriteFile(filepath.Join(co, "go.mod"), []byte("module scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(co, ".cache", "onnxruntime"), 0o755); err != nil {
		t.Fatal(err)
	}
	coLib := filepath.Join(co, ".cache", "onnxruntime", "libonnxruntime.so.1")
	if err := os.Symlink(lib, coLib); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(co, "bin", "boolpool")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BOOLPOOL_CACHE=") && !strings.HasPrefix(kv, "BOOLPOOL_ORT_LIB=") &&
			!strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	home := t.TempDir() // an empty per-user cache
	env = append(env, "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	cmd := exec.CommandContext(ctx, bin, "model", "where")
	cmd.Dir = t.TempDir()
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("model where: %v\n%s", err, stderr.String())
	}
	want := "onnxruntime\t" + coLib + "\tpresent\n"
	if !strings.Contains(stdout.String(), want) {
		t.Fatalf("model where from another directory:\n%s\nwant the line %q", stdout.String(), want)
	}
}
