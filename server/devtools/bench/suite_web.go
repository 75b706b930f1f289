package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// WebSuite measures the browser client with the chromedp benchmarks of
// web/e2e (real server, Postgres and headless Chromium): app.wasm bytes raw,
// gzip and brotli; cold time to interactive; and the judge-submit-to-next-
// item latency measured inside the page (steady, back to back, and the
// first submit after a page load). It needs the Go toolchain and
// Chromium (scripts/install-chromium.sh); without them it reports why.
func WebSuite() Suite { return Suite{Name: "web", Run: runWeb} }

func runWeb(ctx context.Context, env *Env) ([]Row, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
		return []Row{{Suite: "web", Name: "browser benchmarks", Note: "skipped: the Go toolchain and the source tree are needed"}}, nil
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		return []Row{{Suite: "web", Name: "browser benchmarks", Note: "skipped: chromium missing (scripts/install-chromium.sh)"}}, nil
	}
	repeats := env.Repeats
	iters := 20
	if env.Quick || repeats < 1 {
		repeats, iters = 1, 5
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".",
		"-benchtime", fmt.Sprintf("%dx", iters), "-count", strconv.Itoa(repeats), "./web/e2e/")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd.Env = append(os.Environ(), "DATABASE_URL="+env.DBURL)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if env.Progress != nil {
		fmt.Fprintf(env.Progress, "web: go test -bench ./web/e2e/ (%d x %d)\n", repeats, iters)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: web benchmarks: %w\n%s", err, out.String())
	}
	m := parseBenchMetrics(out.Bytes())
	med := func(unit string) float64 { return Median(m[unit]) }
	raw, gz, br := med("raw-bytes"), med("gzip-bytes"), med("brotli-bytes")
	tti, next, next90 := med("ms-tti"), med("ms-submit-next"), med("ms-submit-next-p90")
	b2b, b2b90 := med("ms-b2b-next"), med("ms-b2b-next-p90")
	first, first90 := med("ms-first-submit-next"), med("ms-first-submit-next-p90")
	rows := []Row{
		{Suite: "web", Name: "app.wasm raw", Value: raw / 1e6, Unit: "MB"},
		Row{Suite: "web", Name: "app.wasm gzip -9", Value: gz / 1e6, Unit: "MB"}.WithRef("raw", raw/1e6),
		Row{Suite: "web", Name: "app.wasm brotli q9 (served)", Value: br / 1e6, Unit: "MB"}.WithRef("gzip", gz/1e6),
		Row{Suite: "web", Name: "cold time to interactive (headless Chromium, loopback)", Value: tti, Unit: "ms"}.
			WithTarget("< 5000 ms", tti > 0 && tti < 5000),
		Row{Suite: "web", Name: "judge submit → next item on screen (in page), median", Value: next, Unit: "ms",
			Note: fmt.Sprintf("0.5 s reading time between submits; p90 %.1f ms", next90)}.
			WithTarget("< 100 ms", next > 0 && next < 100),
		{Suite: "web", Name: "judge submit → next item, back to back (no reading time), median", Value: b2b, Unit: "ms",
			Note: fmt.Sprintf("each submit overlaps the previous one's sending and refilling; p90 %.1f ms", b2b90)},
		{Suite: "web", Name: "judge first submit after a page load → next item, median", Value: first, Unit: "ms",
			Note: fmt.Sprintf("issue 25: 228–341 ms before the frame wake; p90 %.1f ms", first90)},
	}
	return rows, nil
}

// parseBenchMetrics collects every "value unit" pair of the benchmark
// lines of 'go test -bench' output, by unit.
func parseBenchMetrics(out []byte) map[string][]float64 {
	m := map[string][]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[f[i+1]] = append(m[f[i+1]], v)
			}
		}
	}
	return m
}
