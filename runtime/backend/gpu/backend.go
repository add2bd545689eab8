// Package gpu is forge's GPU backend for the suites: a suite.Backend
// (and suite.DeviceBackend) over a kernel library loaded by runtime/device/gpu.
// Importing it registers the "cuda" backend (NVIDIA libraries) and the
// "hip" backend (AMD libraries) with runtime/suite, whose Select finds the
// library (-lib, $FORGE_LIB, or a libforge_*.so beside the executable or in
// build/). runtime/suite/suitetest imports it, so the generated suites run
// on a GPU with `go test ./generated/suites -args -backend=cuda -lib=...`.
// In a binary built without cgo both names are registered as backends
// whose opening fails with runtime/device/gpu.ErrNoCgo.
//
// Dequantize and DequantizeF16 take host slices, like the cpu backend: they
// copy the blocks to device memory from the device's caching allocator,
// launch the generated launcher, synchronise and copy the output back. The
// benchmarks' path (PrepareDequant, PrepareCopy) keeps the data on the
// device and times the kernels alone with device events.
package gpu

import (
	"fmt"
	"os"
	"strconv"
	"time"
	"unsafe"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/devmem"
	dev "github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// EnvDevice selects the device index the registered backends open
// (default 0).
const EnvDevice = "FORGE_DEVICE"

func init() {
	for _, name := range dev.BackendNames() {
		if err := dev.Available(); err != nil {
			// A binary built without cgo loads no library: asking for the
			// backend says so, and how to build one that can, before any
			// library is looked for.
			suite.RegisterBackend(name, func() (suite.Backend, error) { return nil, err })
			continue
		}
		suite.RegisterLibraryBackend(name, func(lib string) (suite.Backend, error) {
			device := 0
			if s := os.Getenv(EnvDevice); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("$%s=%q: want a device index >= 0", EnvDevice, s)
				}
				device = n
			}
			return Open(name, lib, device)
		})
	}
}

// Backend runs the dequant kernels of one kernel library on one device. It
// is safe for concurrent use.
type Backend struct {
	name string
	dev  *dev.Device
	mem  *devmem.Allocator
}

var _ suite.DeviceBackend = (*Backend)(nil)

// Open opens backend name ("cuda" or "hip") on the library at lib and
// device index device.
func Open(name, lib string, device int) (*Backend, error) {
	d, err := dev.OpenBackend(name, lib, device)
	if err != nil {
		return nil, err
	}
	return &Backend{name: name, dev: d, mem: d.Memory()}, nil
}

// Name is the backend's name: "cuda" or "hip".
func (b *Backend) Name() string { return b.name }

// Device is the device the backend runs on.
func (b *Backend) Device() *dev.Device { return b.dev }

// DeviceInfo describes the device for the benchmark records.
func (b *Backend) DeviceInfo() suite.DeviceInfo {
	i := b.dev.Info()
	return suite.DeviceInfo{
		Library: i.Library, Name: i.Name, Vendor: i.Vendor, Arch: i.Arch, Target: i.Target,
		WaveSize: i.WaveSize, ComputeUnits: i.ComputeUnits, MemoryBytes: i.TotalMem,
		DriverVersion: i.DriverVersion, RuntimeVersion: i.RuntimeVersion,
	}
}

// Describe names the device and library.
func (b *Backend) Describe() string { return b.dev.Info().String() }

// L2Bytes is the device's L2 cache size.
func (b *Backend) L2Bytes() int64 { return int64(b.dev.Info().L2Bytes) }

// Close releases the device's cached memory.
func (b *Backend) Close() error { return b.dev.Close() }

// Dequantize decodes the whole blocks in src into dst on the device.
func (b *Backend) Dequantize(f *formats.Format, dst []float32, src []byte) error {
	return dequantize(b, f, suite.OutputF32, dst, src)
}

// DequantizeF16 decodes the whole blocks in src into binary16 bits on the
// device.
func (b *Backend) DequantizeF16(f *formats.Format, dst []uint16, src []byte) error {
	return dequantize(b, f, suite.OutputF16, dst, src)
}

// launcher finds the launcher of f's dequant kernel to output.
func (b *Backend) launcher(f *formats.Format, output string) (kernels.DequantFunc, error) {
	kernel := "dequant_" + output
	fn, ok := b.dev.Kernels().Dequant(kernel, f.Name)
	if !ok {
		return nil, fmt.Errorf("%s: the kernel library has no %s launcher for %s", b.name, kernel, f.Name)
	}
	return fn, nil
}

func dequantize[T float32 | uint16](b *Backend, f *formats.Format, output string, dst []T, src []byte) (err error) {
	if err := f.CheckSizes(len(dst), len(src)); err != nil {
		return err
	}
	fn, err := b.launcher(f, output)
	if err != nil {
		return err
	}
	nBlocks := len(src) / f.BlockBytes
	if nBlocks == 0 {
		return nil
	}
	var z T
	outBytes := uint64(len(dst)) * uint64(unsafe.Sizeof(z))
	what := fmt.Sprintf("%s dequant_%s on %s", f.Name, output, b.name)
	dsrc, err := b.mem.Alloc(uint64(len(src)))
	if err != nil {
		return fmt.Errorf("%s: input: %w", what, err)
	}
	// The buffers go back to the cache only after the synchronous copy
	// back below: no kernel uses them any more.
	defer b.free(dsrc, &err)
	ddst, err := b.mem.Alloc(outBytes)
	if err != nil {
		return fmt.Errorf("%s: output: %w", what, err)
	}
	defer b.free(ddst, &err)
	if err := b.dev.H2D(dsrc, src); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.dev.Launch(func() error { return fn(dsrc, ddst, int64(nBlocks), 0) }); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	// A kernel's own faults surface at the next synchronisation.
	if err := b.dev.Synchronize(); err != nil {
		return fmt.Errorf("%s: after the kernel: %w", what, err)
	}
	if err := dev.Download(b.dev, dst, ddst); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// free returns p to the cache, reporting a failure if nothing else failed.
func (b *Backend) free(p abi.DevicePtr, err *error) {
	if e := b.mem.Free(p); e != nil && *err == nil {
		*err = e
	}
}

// resident is a kernel with its buffers on the device.
type resident struct {
	b      *Backend
	bufs   []abi.DevicePtr
	launch func() error
	timer  *dev.Timer
}

func (b *Backend) newResident(sizes ...uint64) (*resident, error) {
	r := &resident{b: b}
	for _, n := range sizes {
		p, err := b.mem.Alloc(n)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.bufs = append(r.bufs, p)
	}
	t, err := b.dev.NewTimer(0)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.timer = t
	return r, nil
}

// Run launches the kernel n times between two device events on the default
// stream and returns the device time between them.
func (r *resident) Run(n int) (time.Duration, error) {
	if n < 1 {
		return 0, fmt.Errorf("%s: Run(%d): want at least one launch", r.b.name, n)
	}
	var dt time.Duration
	err := r.b.dev.Launch(func() error {
		if err := r.timer.Start(); err != nil {
			return err
		}
		for range n {
			if err := r.launch(); err != nil {
				return err
			}
		}
		var err error
		dt, err = r.timer.Stop()
		return err
	})
	if err != nil {
		return 0, err
	}
	// Stop waited for the end event; a kernel's fault surfaces here.
	if err := r.b.dev.Synchronize(); err != nil {
		return 0, err
	}
	return dt, nil
}

// Close frees the buffers and the timer.
func (r *resident) Close() error {
	var first error
	if r.timer != nil {
		first = r.timer.Close()
		r.timer = nil
	}
	for _, p := range r.bufs {
		if err := r.b.mem.Free(p); err != nil && first == nil {
			first = err
		}
	}
	r.bufs = nil
	return first
}

// PrepareDequant uploads src and allocates the output of f's dequant
// kernel to output on the device.
func (b *Backend) PrepareDequant(f *formats.Format, output string, src []byte) (suite.Resident, error) {
	size := suite.OutputSize(output)
	if size == 0 {
		return nil, fmt.Errorf("%s: unknown dequant output %q", b.name, output)
	}
	if len(src) == 0 || len(src)%f.BlockBytes != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a positive number of %d-byte %s blocks", b.name, len(src), f.BlockBytes, f.Name)
	}
	fn, err := b.launcher(f, output)
	if err != nil {
		return nil, err
	}
	nBlocks := len(src) / f.BlockBytes
	r, err := b.newResident(uint64(len(src)), uint64(nBlocks)*uint64(f.BlockElems)*uint64(size))
	if err != nil {
		return nil, fmt.Errorf("%s dequant_%s on %s: %w", f.Name, output, b.name, err)
	}
	if err := b.dev.H2D(r.bufs[0], src); err != nil {
		r.Close()
		return nil, err
	}
	in, out := r.bufs[0], r.bufs[1]
	r.launch = func() error { return fn(in, out, int64(nBlocks), 0) }
	return r, nil
}

// PrepareCopy allocates two buffers of bytes bytes for forge_copy; the
// source is filled, so that its pages are mapped before any timing.
func (b *Backend) PrepareCopy(bytes int64) (suite.Resident, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("%s: copy of %d bytes", b.name, bytes)
	}
	n := uint64(bytes)
	r, err := b.newResident(n, n)
	if err != nil {
		return nil, fmt.Errorf("forge_copy of %s on %s: %w", devmem.FormatBytes(n), b.name, err)
	}
	for _, p := range r.bufs {
		if err := b.dev.Memset(p, 0x5a, n); err != nil {
			r.Close()
			return nil, err
		}
	}
	src, dst := r.bufs[0], r.bufs[1]
	r.launch = func() error { return b.dev.Copy(dst, src, n, 0) }
	return r, nil
}

var _ suite.DeviceMatVecBackend = (*Backend)(nil)

// matVecLauncher finds the launcher of f's matvec_f32 kernel.
func (b *Backend) matVecLauncher(f *formats.Format) (kernels.MatVecFunc, error) {
	const kernel = "matvec_f32"
	fn, ok := b.dev.Kernels().MatVec(kernel, f.Name)
	if !ok {
		return nil, fmt.Errorf("%s: the kernel library has no %s launcher for %s", b.name, kernel, f.Name)
	}
	return fn, nil
}

// MatVec computes y = W·x on the device: it uploads w and x, launches the
// generated matvec_f32 launcher, synchronises and downloads y.
func (b *Backend) MatVec(f *formats.Format, y []float32, w []byte, x []float32, rows, cols int) (err error) {
	if err := suite.CheckMatVecSizes(f, len(y), len(w), len(x), rows, cols); err != nil {
		return err
	}
	fn, err := b.matVecLauncher(f)
	if err != nil {
		return err
	}
	if rows == 0 {
		return nil
	}
	what := fmt.Sprintf("%s matvec_f32 %d×%d on %s", f.Name, rows, cols, b.name)
	var bufs [3]abi.DevicePtr
	for i, n := range []uint64{uint64(len(w)), 4 * uint64(len(x)), 4 * uint64(len(y))} {
		// The device allocator hands out a valid pointer even for 0 bytes
		// (a W or x of cols == 0), which the launcher requires.
		p, aerr := b.mem.Alloc(max(n, 1))
		if aerr != nil {
			return fmt.Errorf("%s: %w", what, aerr)
		}
		// Back to the cache only after the synchronous download below.
		defer b.free(p, &err)
		bufs[i] = p
	}
	if err := b.dev.H2D(bufs[0], w); err != nil {
		return fmt.Errorf("%s: W: %w", what, err)
	}
	if err := dev.Upload(b.dev, bufs[1], x); err != nil {
		return fmt.Errorf("%s: x: %w", what, err)
	}
	if err := b.dev.Launch(func() error { return fn(bufs[0], bufs[1], bufs[2], int64(rows), int64(cols), 0) }); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.dev.Synchronize(); err != nil {
		return fmt.Errorf("%s: after the kernel: %w", what, err)
	}
	if err := dev.Download(b.dev, y, bufs[2]); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// PrepareMatVec uploads x, allocates y and holds w as weights says
// (uploadWeights) for f's matvec_f32 kernel; each launch reads the next
// copy of w in turn.
func (b *Backend) PrepareMatVec(f *formats.Format, w []byte, x []float32, rows, cols int, weights suite.WeightMode) (suite.Resident, suite.Weights, error) {
	if err := suite.CheckMatVecSizes(f, rows, len(w), len(x), rows, cols); err != nil {
		return nil, suite.Weights{}, err
	}
	if rows == 0 || cols == 0 {
		return nil, suite.Weights{}, fmt.Errorf("%s: matvec of an empty %d×%d matrix", b.name, rows, cols)
	}
	fn, err := b.matVecLauncher(f)
	if err != nil {
		return nil, suite.Weights{}, err
	}
	what := fmt.Sprintf("%s matvec_f32 %d×%d on %s", f.Name, rows, cols, b.name)
	r, err := b.newResident(4*uint64(len(x)), 4*uint64(rows))
	if err != nil {
		return nil, suite.Weights{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := dev.Upload(b.dev, r.bufs[0], x); err != nil {
		r.Close()
		return nil, suite.Weights{}, err
	}
	rot, err := r.uploadWeights(w, weights)
	if err != nil {
		r.Close()
		return nil, suite.Weights{}, fmt.Errorf("%s: %w", what, err)
	}
	px, py := r.bufs[0], r.bufs[1]
	r.launch = func() error { return fn(rot.next(), px, py, int64(rows), int64(cols), 0) }
	return r, rot.plan, nil
}

// rotation is a resident kernel's copies of its weights: next hands out
// each in turn, one per launch.
type rotation struct {
	ptrs []abi.DevicePtr
	i    int
	plan suite.Weights
}

func (rt *rotation) next() abi.DevicePtr {
	p := rt.ptrs[rt.i]
	rt.i = (rt.i + 1) % len(rt.ptrs)
	return p
}

// uploadWeights allocates the copies of w that mode calls for
// (suite.WeightPlan over the device's L2 and what fits in its free memory
// and the allocator's cache: three quarters of that, leaving room for the
// rest), uploads w into each, and adds them to r's buffers, which Close
// frees. Any family's weights go through it.
func (r *resident) uploadWeights(w []byte, mode suite.WeightMode) (*rotation, error) {
	b := r.b
	if mode == "" {
		mode = suite.WeightsRotate
	}
	var fit int64
	if free, _, err := b.dev.MemInfo(); err == nil {
		fit = int64(free+b.mem.Stats().Cached) / 4 * 3
	}
	plan := suite.WeightPlan(mode, int64(len(w)), b.L2Bytes(), fit)
	rt := &rotation{plan: plan}
	for k := range plan.Copies {
		p, err := b.mem.Alloc(max(uint64(len(w)), 1))
		if err != nil {
			return nil, fmt.Errorf("W, copy %d of %d (%s): %w", k+1, plan.Copies, plan, err)
		}
		r.bufs = append(r.bufs, p)
		if err := b.dev.H2D(p, w); err != nil {
			return nil, fmt.Errorf("W, copy %d of %d: %w", k+1, plan.Copies, err)
		}
		rt.ptrs = append(rt.ptrs, p)
	}
	return rt, nil
}

var _ suite.DeviceMatMulBackend = (*Backend)(nil)

// matMulLauncher finds the launcher of f's matmul_f32 kernel.
func (b *Backend) matMulLauncher(f *formats.Format) (kernels.MatMulFunc, error) {
	const kernel = "matmul_f32"
	fn, ok := b.dev.Kernels().MatMul(kernel, f.Name)
	if !ok {
		return nil, fmt.Errorf("%s: the kernel library has no %s launcher for %s", b.name, kernel, f.Name)
	}
	return fn, nil
}

// MatMul computes Y = W·X on the device: it uploads w and x, launches the
// generated matmul_f32 launcher, synchronises and downloads y.
func (b *Backend) MatMul(f *formats.Format, y []float32, w []byte, x []float32, rows, cols, batch int) (err error) {
	if err := suite.CheckMatMulSizes(f, len(y), len(w), len(x), rows, cols, batch); err != nil {
		return err
	}
	fn, err := b.matMulLauncher(f)
	if err != nil {
		return err
	}
	if rows == 0 || batch == 0 {
		return nil
	}
	what := fmt.Sprintf("%s matmul_f32 %d×%d×%d on %s", f.Name, rows, cols, batch, b.name)
	var bufs [3]abi.DevicePtr
	for i, n := range []uint64{uint64(len(w)), 4 * uint64(len(x)), 4 * uint64(len(y))} {
		// A valid pointer even for 0 bytes (cols == 0), which the launcher requires.
		p, aerr := b.mem.Alloc(max(n, 1))
		if aerr != nil {
			return fmt.Errorf("%s: %w", what, aerr)
		}
		// Back to the cache only after the synchronous download below.
		defer b.free(p, &err)
		bufs[i] = p
	}
	if err := b.dev.H2D(bufs[0], w); err != nil {
		return fmt.Errorf("%s: W: %w", what, err)
	}
	if err := dev.Upload(b.dev, bufs[1], x); err != nil {
		return fmt.Errorf("%s: X: %w", what, err)
	}
	if err := b.dev.Launch(func() error {
		return fn(bufs[0], bufs[1], bufs[2], int64(rows), int64(cols), int64(batch), 0)
	}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.dev.Synchronize(); err != nil {
		return fmt.Errorf("%s: after the kernel: %w", what, err)
	}
	if err := dev.Download(b.dev, y, bufs[2]); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// PrepareMatMul uploads w and x and allocates y for f's matmul_f32 kernel.
func (b *Backend) PrepareMatMul(f *formats.Format, w []byte, x []float32, rows, cols, batch int, weights suite.WeightMode) (suite.Resident, suite.Weights, error) {
	if err := suite.CheckMatMulSizes(f, batch*rows, len(w), len(x), rows, cols, batch); err != nil {
		return nil, suite.Weights{}, err
	}
	if rows == 0 || cols == 0 || batch == 0 {
		return nil, suite.Weights{}, fmt.Errorf("%s: matmul of an empty %d×%d×%d product", b.name, rows, cols, batch)
	}
	fn, err := b.matMulLauncher(f)
	if err != nil {
		return nil, suite.Weights{}, err
	}
	what := fmt.Sprintf("%s matmul_f32 %d×%d×%d on %s", f.Name, rows, cols, batch, b.name)
	r, err := b.newResident(4*uint64(len(x)), 4*uint64(batch*rows))
	if err != nil {
		return nil, suite.Weights{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := dev.Upload(b.dev, r.bufs[0], x); err != nil {
		r.Close()
		return nil, suite.Weights{}, err
	}
	rot, err := r.uploadWeights(w, weights)
	if err != nil {
		r.Close()
		return nil, suite.Weights{}, fmt.Errorf("%s: %w", what, err)
	}
	px, py := r.bufs[0], r.bufs[1]
	r.launch = func() error { return fn(rot.next(), px, py, int64(rows), int64(cols), int64(batch), 0) }
	return r, rot.plan, nil
}

var _ suite.DeviceAttentionBackend = (*Backend)(nil)

// attentionLauncher finds the attention launcher for dtype and s's head
// dimension.
func (b *Backend) attentionLauncher(dtype string, s cpu.AttentionShape) (kernels.AttentionFunc, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	fn, ok := b.dev.Kernels().Attention(dtype, s.HeadDim)
	if !ok {
		return nil, fmt.Errorf("%s: the kernel library has no attention launcher for %s, head dimension %d", b.name, dtype, s.HeadDim)
	}
	return fn, nil
}

// attentionBytes encodes x as dtype's elements (f16: rounded to nearest even).
func attentionBytes(dtype string, x []float32) []byte {
	if dtype == "f16" {
		h := make([]uint16, len(x))
		for i, v := range x {
			h[i] = uint16(formats.HalfFromFloat32(v))
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h))), 2*len(h))
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
}

// attentionArgs checks the slices against s.
func attentionArgs(dtype string, s cpu.AttentionShape, q, k, v []float32) error {
	if suite.AttentionElemSize(dtype) == 0 {
		return fmt.Errorf("attention: dtype %q: want f16 or f32", dtype)
	}
	if len(q) != s.QElems() || len(k) != s.KVElems() || len(v) != s.KVElems() {
		return fmt.Errorf("attention: shape %+v needs q of %d values and k and v of %d; have %d, %d, %d", s, s.QElems(), s.KVElems(), len(q), len(k), len(v))
	}
	return nil
}

func causalArg(s cpu.AttentionShape) int32 {
	if s.Causal {
		return 1
	}
	return 0
}

// Attention runs the attention kernel for dtype on the device: it uploads
// q, k and v (as dtype), launches, synchronises and downloads o (widened
// to float32).
func (b *Backend) Attention(dtype string, s cpu.AttentionShape, q, k, v, o []float32) (err error) {
	if err := attentionArgs(dtype, s, q, k, v); err != nil {
		return err
	}
	if len(o) != s.QElems() {
		return fmt.Errorf("attention: o has %d values, want %d", len(o), s.QElems())
	}
	fn, err := b.attentionLauncher(dtype, s)
	if err != nil {
		return err
	}
	if s.QElems() == 0 {
		return nil
	}
	elem := uint64(suite.AttentionElemSize(dtype))
	what := fmt.Sprintf("attention %s %+v on %s", dtype, s, b.name)
	var bufs [4]abi.DevicePtr
	for i, n := range []uint64{uint64(s.QElems()), uint64(s.KVElems()), uint64(s.KVElems()), uint64(s.QElems())} {
		p, aerr := b.mem.Alloc(max(n*elem, 1))
		if aerr != nil {
			return fmt.Errorf("%s: %w", what, aerr)
		}
		defer b.free(p, &err)
		bufs[i] = p
	}
	for i, x := range [][]float32{q, k, v} {
		if len(x) == 0 {
			continue
		}
		if err := b.dev.H2D(bufs[i], attentionBytes(dtype, x)); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := b.dev.Launch(func() error {
		return fn(bufs[0], bufs[1], bufs[2], bufs[3], int64(s.Batch), int64(s.Heads), int64(s.HeadsKV), int64(s.SeqQ), int64(s.SeqKV), s.Scale, causalArg(s), 0)
	}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.dev.Synchronize(); err != nil {
		return fmt.Errorf("%s: after the kernel: %w", what, err)
	}
	if dtype == "f16" {
		h := make([]uint16, len(o))
		if err := dev.Download(b.dev, h, bufs[3]); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		for i, x := range h {
			o[i] = formats.Half(x).Float32()
		}
		return nil
	}
	if err := dev.Download(b.dev, o, bufs[3]); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// PrepareAttention uploads q, k and v (as dtype) and allocates o for the
// attention kernel; Run launches it.
func (b *Backend) PrepareAttention(dtype string, s cpu.AttentionShape, q, k, v []float32) (suite.Resident, error) {
	if err := attentionArgs(dtype, s, q, k, v); err != nil {
		return nil, err
	}
	fn, err := b.attentionLauncher(dtype, s)
	if err != nil {
		return nil, err
	}
	if s.QElems() == 0 || s.KVElems() == 0 {
		return nil, fmt.Errorf("%s: attention of an empty shape %+v", b.name, s)
	}
	elem := uint64(suite.AttentionElemSize(dtype))
	r, err := b.newResident(uint64(s.QElems())*elem, uint64(s.KVElems())*elem, uint64(s.KVElems())*elem, uint64(s.QElems())*elem)
	if err != nil {
		return nil, fmt.Errorf("attention %s %+v on %s: %w", dtype, s, b.name, err)
	}
	for i, x := range [][]float32{q, k, v} {
		if err := b.dev.H2D(r.bufs[i], attentionBytes(dtype, x)); err != nil {
			r.Close()
			return nil, err
		}
	}
	pq, pk, pv, po := r.bufs[0], r.bufs[1], r.bufs[2], r.bufs[3]
	r.launch = func() error {
		return fn(pq, pk, pv, po, int64(s.Batch), int64(s.Heads), int64(s.HeadsKV), int64(s.SeqQ), int64(s.SeqKV), s.Scale, causalArg(s), 0)
	}
	return r, nil
}
