package encoders

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveCacheDir: the cache never depends on the working directory:
// an explicit BOOLPOOL_CACHE (made absolute), else the per-user cache when
// it holds the pieces, else the checkout the binary lives in, else the
// checkout around the working directory.
func TestResolveCacheDir(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	touch := func(parts ...string) {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A checkout with its runtime installed, and its binary.
	touch("checkout", "go.mod")
	touch("checkout", ".cache", "onnxruntime", "libonnxruntime.so.1")
	exe := filepath.Join(root, "checkout", "bin", "boolpool")
	touch("checkout", "bin", "boolpool")
	elsewhere := mk("elsewhere", "deep")
	emptyUser := mk("user-empty")
	fullUser := mk("user-full")
	touch("user-full", "boolpool", "models", "x.onnx")

	wd, _ := os.Getwd()
	if got, want := resolveCacheDir("rel/cache", emptyUser, exe, elsewhere), filepath.Join(wd, "rel", "cache"); got != want {
		t.Errorf("relative BOOLPOOL_CACHE: %s, want %s", got, want)
	}
	if got := resolveCacheDir("/abs/cache", fullUser, exe, elsewhere); got != "/abs/cache" {
		t.Errorf("BOOLPOOL_CACHE must win: %s", got)
	}
	if got, want := resolveCacheDir("", fullUser, exe, elsewhere), filepath.Join(fullUser, "boolpool"); got != want {
		t.Errorf("user cache holding models: %s, want %s", got, want)
	}
	checkoutCache := filepath.Join(root, "checkout", ".cache")
	if got := resolveCacheDir("", emptyUser, exe, elsewhere); got != checkoutCache {
		t.Errorf("binary in a checkout, run elsewhere: %s, want %s", got, checkoutCache)
	}
	// go test / go run: the binary is in a build directory, the working
	// directory inside the checkout.
	if got := resolveCacheDir("", emptyUser, filepath.Join(root, "tmp", "go-build1", "b001", "x.test"), filepath.Join(root, "checkout", "cmd")); got != checkoutCache {
		t.Errorf("working directory in the checkout: %s, want %s", got, checkoutCache)
	}
	// Nothing installed anywhere, binary in a checkout: point at the
	// checkout (where the install scripts put things).
	touch("bare", "go.mod")
	bareExe := filepath.Join(root, "bare", "bin", "boolpool")
	if got, want := resolveCacheDir("", emptyUser, bareExe, elsewhere), filepath.Join(root, "bare", ".cache"); got != want {
		t.Errorf("nothing installed: %s, want %s", got, want)
	}
	// Nothing installed, no checkout: the per-user cache.
	if got, want := resolveCacheDir("", emptyUser, filepath.Join(root, "usr", "bin", "boolpool"), elsewhere), filepath.Join(emptyUser, "boolpool"); got != want {
		t.Errorf("installed binary, nothing found: %s, want %s", got, want)
	}
}
