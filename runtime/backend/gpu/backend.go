// Package gpu is forge's GPU backend: a backend.Device over a kernel
// library loaded by runtime/device/gpu, running the families' launchers
// through their operations (backend.Blocks, backend.Matrix,
// backend.Attention). Importing it registers the "cuda" backend (NVIDIA
// libraries) and the "hip" backend (AMD libraries) with runtime/backend,
// whose Select finds the library (-lib, $FORGE_LIB, or a libforge_*.so
// beside the executable or in build/). runtime/suite/suitetest imports it,
// so the generated suites run on a GPU with `go test ./generated/suites
// -args -backend=cuda -lib=...`.
// In a binary built without cgo both names are registered as backends
// whose opening fails with runtime/device/gpu.ErrNoCgo.
//
// The Run methods take host slices, like the cpu backend's: they copy the
// inputs to device memory from the device's caching allocator, launch the
// kernel's generated launcher, synchronise and copy the output back. The
// Prepare methods keep the data on the device for benchmarks, which time
// the kernels alone with device events.
package gpu

import (
	"fmt"
	"os"
	"strconv"
	"time"
	"unsafe"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/devmem"
	dev "github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/specs/families"
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
			backend.Register(name, func() (backend.Backend, error) { return nil, err })
			continue
		}
		backend.RegisterLibrary(name, func(lib string) (backend.Backend, error) {
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

// Backend runs the kernels of one kernel library on one device. It is safe
// for concurrent use.
type Backend struct {
	name string
	dev  *dev.Device
	mem  *devmem.Allocator
}

var (
	_ backend.Device    = (*Backend)(nil)
	_ backend.Blocks    = (*Backend)(nil)
	_ backend.Matrix    = (*Backend)(nil)
	_ backend.Attention = (*Backend)(nil)
)

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
func (b *Backend) DeviceInfo() backend.DeviceInfo {
	i := b.dev.Info()
	return backend.DeviceInfo{
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

// missing is the error for a kernel the library has no launcher for.
func (b *Backend) missing(k backend.Kernel) error {
	return fmt.Errorf("%s: the kernel library has no %s launcher (%s)", b.name, k, k.Symbol())
}

// bytesOf views a slice of numbers as its bytes.
func bytesOf[T float32 | uint16](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// roundTrip runs one kernel on host data: it allocates a device buffer of
// each size (at least one byte: a launcher needs a valid pointer even for
// an empty input), uploads in[i] into buffer i (none where in[i] is nil),
// launches, synchronises (a kernel's own faults surface there), and
// downloads buffer out into dst; the buffers go back to the allocator's
// cache after the synchronous download.
func (b *Backend) roundTrip(what string, sizes []uint64, in [][]byte, launch func(p []abi.DevicePtr) error, out int, dst []byte) (err error) {
	p := make([]abi.DevicePtr, len(sizes))
	for i, n := range sizes {
		q, aerr := b.mem.Alloc(max(n, 1))
		if aerr != nil {
			return fmt.Errorf("%s: %w", what, aerr)
		}
		defer b.free(q, &err)
		p[i] = q
	}
	for i, src := range in {
		if len(src) == 0 {
			continue
		}
		if err := b.dev.H2D(p[i], src); err != nil {
			return fmt.Errorf("%s: input %d: %w", what, i, err)
		}
	}
	if err := b.dev.Launch(func() error { return launch(p) }); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.dev.Synchronize(); err != nil {
		return fmt.Errorf("%s: after the kernel: %w", what, err)
	}
	if len(dst) > 0 {
		if err := b.dev.D2H(dst, p[out]); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
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

// prepare allocates a buffer of each size, uploads in[i] into buffer i
// (none where in[i] is nil), and returns the resident, whose launch the
// caller sets.
func (b *Backend) prepare(what string, sizes []uint64, in [][]byte) (*resident, error) {
	r := &resident{b: b}
	for _, n := range sizes {
		p, err := b.mem.Alloc(max(n, 1))
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("%s on %s: %w", what, b.name, err)
		}
		r.bufs = append(r.bufs, p)
	}
	for i, src := range in {
		if len(src) == 0 {
			continue
		}
		if err := b.dev.H2D(r.bufs[i], src); err != nil {
			r.Close()
			return nil, fmt.Errorf("%s on %s: %w", what, b.name, err)
		}
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

// PrepareCopy allocates two buffers of bytes bytes for forge_copy; the
// source is filled, so that its pages are mapped before any timing.
func (b *Backend) PrepareCopy(bytes int64) (backend.Resident, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("%s: copy of %d bytes", b.name, bytes)
	}
	n := uint64(bytes)
	r, err := b.prepare("forge_copy of "+devmem.FormatBytes(n), []uint64{n, n}, nil)
	if err != nil {
		return nil, err
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

// blocksLauncher finds k's launcher: a kernel of the blocks signature.
func (b *Backend) blocksLauncher(k backend.Kernel) (func(src, dst abi.DevicePtr, nBlocks int64) error, error) {
	if k.Format == nil {
		return nil, fmt.Errorf("%s: %s: a blocks kernel needs a format", b.name, k.Name)
	}
	fn, ok := b.dev.Kernels().Blocks(k.Name, k.Format.Name)
	if !ok {
		return nil, b.missing(k)
	}
	return func(src, dst abi.DevicePtr, n int64) error { return fn(src, dst, n, 0) }, nil
}

// RunBlocks runs k over the whole blocks in src on the device (ref is the
// cpu's).
func (b *Backend) RunBlocks(k backend.Kernel, _ backend.BlockRef, dst []float32, src []byte) error {
	return b.runBlocks(k, len(dst), bytesOf(dst), src)
}

// RunBlocksF16 runs k, an f16 kernel, over the whole blocks in src.
func (b *Backend) RunBlocksF16(k backend.Kernel, _ backend.BlockRef, dst []uint16, src []byte) error {
	return b.runBlocks(k, len(dst), bytesOf(dst), src)
}

func (b *Backend) runBlocks(k backend.Kernel, nElems int, dst, src []byte) error {
	f := k.Format
	if f == nil {
		return fmt.Errorf("%s: %s: a blocks kernel needs a format", b.name, k.Name)
	}
	if err := f.CheckSizes(nElems, len(src)); err != nil {
		return err
	}
	if backend.OutputSize(k.Output)*nElems != len(dst) {
		return fmt.Errorf("%s: %s: output %q does not fit %d bytes for %d elements", b.name, k, k.Output, len(dst), nElems)
	}
	fn, err := b.blocksLauncher(k)
	if err != nil {
		return err
	}
	nBlocks := len(src) / f.BlockBytes
	if nBlocks == 0 {
		return nil
	}
	return b.roundTrip(fmt.Sprintf("%s on %s", k, b.name), []uint64{uint64(len(src)), uint64(len(dst))}, [][]byte{src},
		func(p []abi.DevicePtr) error { return fn(p[0], p[1], int64(nBlocks)) }, 1, dst)
}

// PrepareBlocks uploads src and allocates k's output on the device.
func (b *Backend) PrepareBlocks(k backend.Kernel, _ backend.BlockRef, src []byte) (backend.Resident, error) {
	f := k.Format
	size := backend.OutputSize(k.Output)
	switch {
	case f == nil:
		return nil, fmt.Errorf("%s: %s: a blocks kernel needs a format", b.name, k.Name)
	case size == 0:
		return nil, fmt.Errorf("%s: %s: unknown output %q", b.name, k, k.Output)
	case len(src) == 0 || len(src)%f.BlockBytes != 0:
		return nil, fmt.Errorf("%s: %d bytes is not a positive number of %d-byte %s blocks", b.name, len(src), f.BlockBytes, f.Name)
	}
	fn, err := b.blocksLauncher(k)
	if err != nil {
		return nil, err
	}
	nBlocks := len(src) / f.BlockBytes
	r, err := b.prepare(k.String(), []uint64{uint64(len(src)), uint64(nBlocks) * uint64(f.BlockElems) * uint64(size)}, [][]byte{src})
	if err != nil {
		return nil, err
	}
	in, out := r.bufs[0], r.bufs[1]
	r.launch = func() error { return fn(in, out, int64(nBlocks)) }
	return r, nil
}

// matrixLauncher finds k's launcher for shape s: a kernel of the matvec
// signature (one vector), of the matvec_x8 signature (one vector, on the
// format's integer form) or of the matmul signature. scratch is the device
// buffer the launch needs besides W, X and Y (its size in bytes; 0 for
// none): matvec_x8's quantized x, which each launch first writes with the
// glue's glue_quantize_x8 and then reads, so that a timed run pays for the
// quantization too.
func (b *Backend) matrixLauncher(k backend.Kernel, s backend.MatrixShape) (launch func(w, x, y, scratch abi.DevicePtr) error, scratch uint64, err error) {
	rows, cols, batch := int64(s.Rows), int64(s.Cols), int64(s.Batch)
	switch k.Signature {
	case "matvec":
		if s.Batch != 1 {
			return nil, 0, fmt.Errorf("%s: %s: a matvec kernel takes one vector, not %d", b.name, k, s.Batch)
		}
		fn, ok := b.dev.Kernels().MatVec(k.Name, k.Format.Name)
		if !ok {
			return nil, 0, b.missing(k)
		}
		return func(w, x, y, _ abi.DevicePtr) error { return fn(w, x, y, rows, cols, 0) }, 0, nil
	case "matvec_x8":
		if s.Batch != 1 {
			return nil, 0, fmt.Errorf("%s: %s: a matvec kernel takes one vector, not %d", b.name, k, s.Batch)
		}
		if s.Cols%32 != 0 {
			return nil, 0, fmt.Errorf("%s: %s: %d columns is not a multiple of 32, the activations' quantization groups", b.name, k, s.Cols)
		}
		fn, ok := b.dev.Kernels().MatVecX8(k.Name, k.Format.Name)
		if !ok {
			return nil, 0, b.missing(k)
		}
		quantize, ok := b.dev.Kernels().GlueQuantize(quantizeX8.Name)
		if !ok {
			return nil, 0, b.missing(quantizeX8)
		}
		return func(w, x, y, xq abi.DevicePtr) error {
			if err := quantize(x, xq, cols, 0); err != nil {
				return err
			}
			return fn(w, xq, y, rows, cols, 0)
		}, uint64(formats.X8Bytes(s.Cols)), nil
	case "matmul":
		fn, ok := b.dev.Kernels().MatMul(k.Name, k.Format.Name)
		if !ok {
			return nil, 0, b.missing(k)
		}
		return func(w, x, y, _ abi.DevicePtr) error { return fn(w, x, y, rows, cols, batch, 0) }, 0, nil
	}
	return nil, 0, fmt.Errorf("%s: %s: signature %q is not a matrix product's", b.name, k, k.Signature)
}

// quantizeX8 is the glue kernel that quantizes matvec_x8's activations.
var quantizeX8 = backend.Kernel{Family: "glue", Name: "glue_quantize_x8", Signature: "glue_quantize", Output: backend.OutputF32}

// RunMatrix computes Y = W·X on the device: it uploads w and x, launches
// k's launcher, synchronises and downloads y.
func (b *Backend) RunMatrix(k backend.Kernel, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if err := s.Check(k.Family, k.Format, len(y), len(w), len(x)); err != nil {
		return err
	}
	fn, scratch, err := b.matrixLauncher(k, s)
	if err != nil {
		return err
	}
	if s.Rows == 0 || s.Batch == 0 {
		return nil
	}
	what := fmt.Sprintf("%s %d×%d×%d on %s", k, s.Rows, s.Cols, s.Batch, b.name)
	return b.roundTrip(what, []uint64{uint64(len(w)), 4 * uint64(len(x)), 4 * uint64(len(y)), scratch}, [][]byte{w, bytesOf(x)},
		func(p []abi.DevicePtr) error { return fn(p[0], p[1], p[2], p[3]) }, 2, bytesOf(y))
}

// PrepareMatrix uploads x, allocates y and holds w as mode says
// (uploadWeights) for k's launcher; each launch reads the next copy of w
// in turn.
func (b *Backend) PrepareMatrix(k backend.Kernel, w []byte, x []float32, s backend.MatrixShape, mode backend.WeightMode) (backend.Resident, backend.Weights, error) {
	if err := s.Check(k.Family, k.Format, s.Batch*s.Rows, len(w), len(x)); err != nil {
		return nil, backend.Weights{}, err
	}
	if s.Rows == 0 || s.Cols == 0 || s.Batch == 0 {
		return nil, backend.Weights{}, fmt.Errorf("%s: %s of an empty %d×%d×%d product", b.name, k, s.Rows, s.Cols, s.Batch)
	}
	fn, scratch, err := b.matrixLauncher(k, s)
	if err != nil {
		return nil, backend.Weights{}, err
	}
	what := fmt.Sprintf("%s %d×%d×%d", k, s.Rows, s.Cols, s.Batch)
	// The scratch buffer (if any) is allocated with x and y, before W's
	// copies, which rotation sizes from the memory then free.
	r, err := b.prepare(what, []uint64{4 * uint64(len(x)), 4 * uint64(s.Batch*s.Rows), scratch}, [][]byte{bytesOf(x)})
	if err != nil {
		return nil, backend.Weights{}, err
	}
	rot, err := r.uploadWeights(w, mode)
	if err != nil {
		r.Close()
		return nil, backend.Weights{}, fmt.Errorf("%s on %s: %w", what, b.name, err)
	}
	px, py, ps := r.bufs[0], r.bufs[1], r.bufs[2]
	r.launch = func() error { return fn(rot.next(), px, py, ps) }
	return r, rot.plan, nil
}

// rotation is a resident kernel's copies of its weights: next hands out
// each in turn, one per launch.
type rotation struct {
	ptrs []abi.DevicePtr
	i    int
	plan backend.Weights
}

func (rt *rotation) next() abi.DevicePtr {
	p := rt.ptrs[rt.i]
	rt.i = (rt.i + 1) % len(rt.ptrs)
	return p
}

// uploadWeights allocates the copies of w that mode calls for
// (backend.WeightPlan over the device's L2 and what fits in its free
// memory and the allocator's cache: three quarters of that, leaving room
// for the rest), uploads w into each, and adds them to r's buffers, which
// Close frees. Any family's weights go through it.
func (r *resident) uploadWeights(w []byte, mode backend.WeightMode) (*rotation, error) {
	b := r.b
	if mode == "" {
		mode = backend.WeightsRotate
	}
	var fit int64
	if free, _, err := b.dev.MemInfo(); err == nil {
		fit = int64(free+b.mem.Stats().Cached) / 4 * 3
	}
	plan := backend.WeightPlan(mode, int64(len(w)), b.L2Bytes(), fit)
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

// attentionLauncher finds the attention launcher for dtype and s's head
// dimension.
func (b *Backend) attentionLauncher(dtype string, s backend.AttentionShape) (func(q, k, v, o abi.DevicePtr) error, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	fn, ok := b.dev.Kernels().Attention(families.AttentionKernel(dtype, s.HeadDim))
	if !ok {
		return nil, fmt.Errorf("%s: the kernel library has no attention launcher for %s, head dimension %d", b.name, dtype, s.HeadDim)
	}
	causal := int32(0)
	if s.Causal {
		causal = 1
	}
	return func(q, k, v, o abi.DevicePtr) error {
		return fn(q, k, v, o, int64(s.Batch), int64(s.Heads), int64(s.HeadsKV), int64(s.SeqQ), int64(s.SeqKV), s.Scale, causal, 0)
	}, nil
}

// attentionBytes encodes x as dtype's elements (f16: rounded to nearest even).
func attentionBytes(dtype string, x []float32) []byte {
	if dtype == "f16" {
		h := make([]uint16, len(x))
		for i, v := range x {
			h[i] = uint16(formats.HalfFromFloat32(v))
		}
		return bytesOf(h)
	}
	return bytesOf(x)
}

// attentionArgs checks the slices against s and returns the element size.
func attentionArgs(dtype string, s backend.AttentionShape, q, k, v []float32) (uint64, error) {
	elem := backend.AttentionElemSize(dtype)
	if elem == 0 {
		return 0, fmt.Errorf("attention: dtype %q: want f16 or f32", dtype)
	}
	if len(q) != s.QElems() || len(k) != s.KVElems() || len(v) != s.KVElems() {
		return 0, fmt.Errorf("attention: shape %+v needs q of %d values and k and v of %d; have %d, %d, %d", s, s.QElems(), s.KVElems(), len(q), len(k), len(v))
	}
	return uint64(elem), nil
}

// Attention runs the attention kernel for dtype on the device: it uploads
// q, k and v (as dtype), launches, synchronises and downloads o (widened
// to float32).
func (b *Backend) Attention(dtype string, s backend.AttentionShape, q, k, v, o []float32) error {
	elem, err := attentionArgs(dtype, s, q, k, v)
	if err != nil {
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
	what := fmt.Sprintf("attention %s %+v on %s", dtype, s, b.name)
	nq, nkv := uint64(s.QElems())*elem, uint64(s.KVElems())*elem
	in := [][]byte{attentionBytes(dtype, q), attentionBytes(dtype, k), attentionBytes(dtype, v)}
	launch := func(p []abi.DevicePtr) error { return fn(p[0], p[1], p[2], p[3]) }
	if dtype == "f16" {
		h := make([]uint16, len(o))
		if err := b.roundTrip(what, []uint64{nq, nkv, nkv, nq}, in, launch, 3, bytesOf(h)); err != nil {
			return err
		}
		for i, x := range h {
			o[i] = formats.Half(x).Float32()
		}
		return nil
	}
	return b.roundTrip(what, []uint64{nq, nkv, nkv, nq}, in, launch, 3, bytesOf(o))
}

// PrepareAttention uploads q, k and v (as dtype) and allocates o for the
// attention kernel; Run launches it. k and v are uploaded as matvec's
// rotated weights are (uploadWeights, backend.WeightsRotate): copies of
// each totalling at least twice the L2, each launch reading the next, so
// that K and V come from memory as in a decode step, where every other
// layer's weights pass through the cache between two reads of one
// layer's K/V.
func (b *Backend) PrepareAttention(dtype string, s backend.AttentionShape, q, k, v []float32) (backend.Resident, error) {
	elem, err := attentionArgs(dtype, s, q, k, v)
	if err != nil {
		return nil, err
	}
	fn, err := b.attentionLauncher(dtype, s)
	if err != nil {
		return nil, err
	}
	if s.QElems() == 0 || s.KVElems() == 0 {
		return nil, fmt.Errorf("%s: attention of an empty shape %+v", b.name, s)
	}
	nq := uint64(s.QElems()) * elem
	what := fmt.Sprintf("attention %s %+v", dtype, s)
	r, err := b.prepare(what, []uint64{nq, nq}, [][]byte{attentionBytes(dtype, q)})
	if err != nil {
		return nil, err
	}
	kr, err := r.uploadWeights(attentionBytes(dtype, k), backend.WeightsRotate)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s on %s: K: %w", what, b.name, err)
	}
	vr, err := r.uploadWeights(attentionBytes(dtype, v), backend.WeightsRotate)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s on %s: V: %w", what, b.name, err)
	}
	pq, po := r.bufs[0], r.bufs[1]
	r.launch = func() error { return fn(pq, kr.next(), vr.next(), po) }
	return r, nil
}
