package bench

import "testing"

func TestParseBenchMetrics(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkWasmSize-2            	      10	       203.4 ns/op	   2816593 brotli-bytes	   3438523 gzip-bytes	  13850845 raw-bytes
BenchmarkTimeToInteractive-2   	      10	3570047521 ns/op	      3570 ms-tti
BenchmarkTimeToInteractive-2   	      10	3470047521 ns/op	      3470 ms-tti
PASS
`)
	m := parseBenchMetrics(out)
	if len(m["ms-tti"]) != 2 || m["raw-bytes"][0] != 13850845 || m["brotli-bytes"][0] != 2816593 || len(m["ns/op"]) != 3 {
		t.Errorf("parsed %v", m)
	}
}
