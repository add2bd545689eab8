//go:build cgo

package abitest

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/device/abi"
)

func TestResolve(t *testing.T) {
	kernels := []abi.KernelInfo{
		{Symbol: "forge_dequant_f32_q4_1", Signature: "blocks"},
		{Symbol: "forge_dequant_f16_q4_1", Signature: "blocks"},
		{Symbol: "forge_dequant_f32_q8_0", Signature: "blocks"},
		{Symbol: "forge_odd_f32_q4_1", Signature: "no_such_signature"},
	}
	many := func(i int) string { return "sym" + string(rune('a'+i%26)) + strings.Repeat("x", i) }
	for i := 2; i < 257; i++ {
		kernels = append(kernels, abi.KernelInfo{Symbol: many(i), Signature: "matvec"})
	}
	l := Open(Options{Missing: []string{"forge_dequant_f32_q8_0"}, Kernels: kernels})
	defer l.Close()
	a, err := l.Resolve("forge_dequant_f32_q4_1")
	if err != nil || a == nil {
		t.Fatalf("resolve: %v, %v", a, err)
	}
	b, _ := l.Resolve("forge_dequant_f16_q4_1")
	a2, _ := l.Resolve("forge_dequant_f32_q4_1")
	if a == b || a != a2 {
		t.Errorf("recording launchers: distinct symbols share one (%v) or one symbol gets two (%v, %v)", a == b, a, a2)
	}
	v, _ := l.Resolve(abi.ABIVersionSymbol)
	h0, _ := l.Resolve(HostKernels()[0])
	h1, _ := l.Resolve(HostKernels()[1])
	if v == nil || h0 == nil || h1 == nil || h0 == h1 || h0 == a || v == a {
		t.Errorf("version %v and host kernels %v %v must be distinct from the recorders", v, h0, h1)
	}
	if _, err := l.Resolve("forge_dequant_f32_q8_0"); err == nil || !strings.Contains(err.Error(), "forge_dequant_f32_q8_0") {
		t.Errorf("missing symbol: %v", err)
	}
	if _, ok := l.LastCall(); ok || l.Calls() != 0 {
		t.Error("a fresh library reports calls")
	}
	// A symbol resolves by its signature, and only if the library has it.
	if _, err := l.Resolve("forge_matvec_f32_q4_1"); err == nil || !strings.Contains(err.Error(), "not among Options.Kernels") {
		t.Errorf("a symbol the library does not export: %v", err)
	}
	if _, err := l.Resolve("forge_odd_f32_q4_1"); err == nil || !strings.Contains(err.Error(), `no recorder of signature "no_such_signature"`) {
		t.Errorf("a signature the fake does not know: %v", err)
	}
	for i := 2; i < 256; i++ {
		if _, err := l.Resolve(many(i)); err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
	}
	if _, err := l.Resolve(many(256)); err == nil {
		t.Error("a 257th recording launcher was handed out")
	}
}

func TestMemory(t *testing.T) {
	p := Alloc(6)
	defer Free(p)
	Upload(p, []byte{1, 0, 2, 0, 3, 0})
	got := make([]uint16, 3)
	Download(got, p)
	if got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("round trip: %v", got)
	}
}
