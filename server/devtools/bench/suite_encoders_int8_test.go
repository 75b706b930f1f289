package bench

import "testing"

func TestParseCPUFlags(t *testing.T) {
	for _, tc := range []struct{ name, cpuinfo, want string }{
		{"vnni", "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni avx512_vnni_x\nbugs\t\t: none\nprocessor\t: 1\nflags\t\t: fpu\n", "avx2 + avx512f + avx512_vnni"},
		{"avx2 only", "flags : fpu avx avx2 fma\n", "avx2"},
		{"avx-vnni and amx", "flags\t: avx2 avx_vnni amx_int8 amx_tile\n", "avx2 + avx_vnni + amx_int8"},
		{"none", "Features : fp asimd\n", "without AVX2"},
	} {
		if got := parseCPUFlags(tc.cpuinfo); got != tc.want {
			t.Errorf("%s: parseCPUFlags = %q, want %q", tc.name, got, tc.want)
		}
	}
}
