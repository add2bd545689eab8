package gpu_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/backend"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	"github.com/rocmforge/forge/runtime/device/abi"
	dev "github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// TestMatVecOnFake runs the fake library's real Q4_0 matvec through
// MatVec: the data path of the device matvec, end to end.
func TestMatVecOnFake(t *testing.T) {
	b, _ := openFake(t, gputest.Options{})
	f := formats.Q4_0
	rows, cols := 37, 96
	w, x, err := suite.MatVecData(f, rows, cols, 1)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float32, rows)
	if err := b.MatVec(f, y, w, x, rows, cols); err != nil {
		t.Fatal(err)
	}
	ref, mag := suite.MatVecRef(f, w, x, rows, cols)
	if nmse, bad := suite.NMSE(y, ref), suite.BadRows(y, ref, mag); nmse > suite.MatVecTolerance || bad > 0 {
		t.Errorf("NMSE %g, %d bad rows", nmse, bad)
	}
	err = b.MatVec(formats.Q8_0, y, make([]byte, rows*34), make([]float32, 32), rows, 32)
	if err == nil || !strings.Contains(err.Error(), "fake: launcher not implemented") {
		t.Errorf("Q8_0 matvec on the fake: %v", err)
	}
}

// TestMatVecWeightRotation checks the rotate mode on the fake library: the
// copies of W are byte-identical uploads, distinct buffers, at least 2 and
// together at least twice the L2; successive launches read them in turn
// (each copy is made to hold a W of its own, and each launch's y must be
// that copy's product); reuse holds one copy.
func TestMatVecWeightRotation(t *testing.T) {
	const l2 = 64 << 10
	b, _ := openFake(t, gputest.Options{L2Bytes: l2})
	f := formats.Q4_0
	rows, cols := 64, 256 // W: 64 × 8 blocks × 18 bytes = 9216 bytes
	w, x, err := suite.MatVecData(f, rows, cols, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, plan, err := b.PrepareMatVec(f, w, x, rows, cols, backend.WeightsRotate)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, py, copies := gpubackend.MatVecBuffers(r)
	wantCopies := (2*l2 + len(w) - 1) / len(w) // 15: the fewest reaching 2 × L2
	if plan.Mode != backend.WeightsRotate || plan.Copies != wantCopies || len(copies) != wantCopies ||
		plan.CopyBytes != int64(len(w)) || plan.TotalBytes != int64(wantCopies*len(w)) || plan.L2Bytes != l2 || !plan.DefeatsL2() {
		t.Fatalf("plan %+v with %d buffers; want %d copies of %d bytes over a %d-byte L2", plan, len(copies), wantCopies, len(w), l2)
	}
	if s := plan.String(); !strings.Contains(s, "rotate: 15 copies of W (9.0 KiB each, 135.0 KiB in all, 2.1× the 64.0 KiB L2)") {
		t.Errorf("plan says %q", s)
	}
	got := make([]byte, len(w))
	for k, p := range copies {
		if slices.Index(copies, p) != k {
			t.Fatalf("copy %d is the same buffer as copy %d", k, slices.Index(copies, p))
		}
		if err := b.Device().D2H(got, p); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, w) {
			t.Errorf("copy %d differs from W", k)
		}
	}
	// Give each copy a W of its own: launch i must read copy i mod K.
	ws := make([][]byte, len(copies))
	for k, p := range copies {
		if ws[k], _, err = suite.MatVecData(f, rows, cols, uint64(100+k)); err != nil {
			t.Fatal(err)
		}
		if err := b.Device().H2D(p, ws[k]); err != nil {
			t.Fatal(err)
		}
	}
	y := make([]float32, rows)
	for i := range 2*len(copies) + 1 {
		if _, err := r.Run(1); err != nil {
			t.Fatal(err)
		}
		if err := dev.Download(b.Device(), y, py); err != nil {
			t.Fatal(err)
		}
		k := i % len(copies)
		ref, mag := suite.MatVecRef(f, ws[k], x, rows, cols)
		if nmse, bad := suite.NMSE(y, ref), suite.BadRows(y, ref, mag); nmse > suite.MatVecTolerance || bad > 0 {
			t.Fatalf("launch %d: y is not the product of copy %d (NMSE %g, %d bad rows)", i, k, nmse, bad)
		}
	}
	// Run(n) keeps turning: n launches advance n copies.
	if _, err := r.Run(len(copies) + 3); err != nil {
		t.Fatal(err)
	}
	r.Run(1)
	dev.Download(b.Device(), y, py)
	k := (2*len(copies) + 1 + len(copies) + 3) % len(copies)
	if ref, _ := suite.MatVecRef(f, ws[k], x, rows, cols); suite.NMSE(y, ref) > suite.MatVecTolerance {
		t.Errorf("after Run(%d): the next launch did not read copy %d", len(copies)+3, k)
	}

	rr, plan, err := b.PrepareMatVec(f, w, x, rows, cols, backend.WeightsReuse)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if _, _, c := gpubackend.MatVecBuffers(rr); len(c) != 1 || plan.Copies != 1 || plan.Mode != backend.WeightsReuse || plan.TotalBytes != int64(len(w)) {
		t.Errorf("reuse: %d buffers, plan %+v", len(c), plan)
	}
}

// TestMatVecWeightRotationFits: rotation makes no more copies than fit in
// three quarters of the free device memory, and at least 2 where they fit.
func TestMatVecWeightRotationFits(t *testing.T) {
	// 256 KiB of device memory, a 1 MiB L2: 2 × L2 would take 228 copies
	// of a 9 KiB W, while 3/4 of ~256 KiB holds about 20.
	b, _ := openFake(t, gputest.Options{MemLimit: 256 << 10, L2Bytes: 1 << 20})
	f := formats.Q4_0
	w, x, err := suite.MatVecData(f, 64, 256, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, plan, err := b.PrepareMatVec(f, w, x, 64, 256, backend.WeightsRotate)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if plan.Copies < 2 || plan.TotalBytes > 3*(256<<10)/4 || plan.DefeatsL2() {
		t.Errorf("plan %+v: want 2 or more copies within 3/4 of 256 KiB", plan)
	}
}

// TestMatVecX8OnFake runs the activations' quantization (the fake's
// forge_glue_quantize_x8, C written from the layout) against the Go
// reference byte for byte, and matvec_x8 through RunMatrix and a prepared
// run: within the x8 bounds of the float reference, with each timed
// launch quantizing x into the scratch buffer first. Where the generated
// library has no Q4_0 matvec_x8 (Q4_0's spec without an integer form) the
// backend must say the launcher is missing.
func TestMatVecX8OnFake(t *testing.T) {
	b, _ := openFake(t, gputest.Options{})
	f := formats.Q4_0
	rows, cols := 37, 96
	w, x, err := suite.MatVecData(f, rows, cols, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := suite.X8Layout(formats.QuantizeX8(x))
	if len(want) != formats.X8Bytes(cols) {
		t.Fatalf("X8Layout: %d bytes, X8Bytes says %d", len(want), formats.X8Bytes(cols))
	}
	k, _ := b.Device().Kernels().GlueQuantize("glue_quantize_x8")
	px, pq := mustAlloc(t, b, 4*cols), mustAlloc(t, b, len(want))
	if err := b.Device().H2D(px, f32Bytes(x)); err != nil {
		t.Fatal(err)
	}
	if err := b.Device().Launch(func() error { return k(px, pq, int64(cols), 0) }); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if err := b.Device().D2H(got, pq); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("forge_glue_quantize_x8 differs from formats.QuantizeX8's layout")
	}

	kx8 := backend.Kernel{Family: "matvec", Name: "matvec_x8", Signature: "matvec_x8", Output: "f32", Format: f}
	y := make([]float32, rows)
	sh := backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}
	err = b.RunMatrix(kx8, y, w, x, sh)
	if !slices.ContainsFunc(kernels.Kernels, func(k abi.KernelInfo) bool { return k.Symbol == "forge_matvec_x8_q4_0" }) {
		if err == nil || !strings.Contains(err.Error(), "no Q4_0 matvec_x8 launcher (forge_matvec_x8_q4_0)") {
			t.Errorf("matvec_x8 without the launcher: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := suite.MatVecRef(f, w, x, rows, cols)
	if nmse, bad := suite.NMSE(y, ref), suite.BadRowsX8(y, ref, suite.MatVecX8Bounds(f, w, x, rows, cols)); nmse > suite.MatVecX8Tolerance || bad > 0 {
		t.Errorf("NMSE %g, %d rows past their bound", nmse, bad)
	}
	r, _, err := b.PrepareMatrix(kx8, w, x, sh, backend.WeightsReuse)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if dt, err := r.Run(2); err != nil || dt <= 0 {
		t.Fatalf("Run(2) = %v, %v", dt, err)
	}
	if err := b.Device().D2H(got, gpubackend.MatVecScratch(r)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("a prepared run left no quantized x in its scratch buffer")
	}
	if err := b.RunMatrix(kx8, y[:1], w[:18*3], x[:96-32], backend.MatrixShape{Rows: 1, Cols: 64, Batch: 2}); err == nil {
		t.Error("a batch of 2 was accepted")
	}
}

func mustAlloc(t *testing.T, b *gpubackend.Backend, n int) abi.DevicePtr {
	t.Helper()
	p, err := b.Device().Memory().Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Device().Memory().Free(p) })
	return p
}

func f32Bytes(x []float32) []byte {
	out := make([]byte, 0, 4*len(x))
	for _, v := range x {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out
}
