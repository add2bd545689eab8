package suite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/specs/formats"
)

// EnvBackend names the backend that `go test` runs the generated suites on.
const EnvBackend = "FORGE_BACKEND"

// EnvLib names the kernel library (libforge_<target>.so, built by forgegen
// build) a GPU backend loads.
const EnvLib = "FORGE_LIB"

// DefaultBackend is the backend used when EnvBackend is unset or empty.
const DefaultBackend = "cpu"

// AutoBackend is the backend name that picks a GPU backend when a kernel
// library is found and opens on this machine, else cpu.
const AutoBackend = "auto"

// gpuBackends are the backends package runtime/backend/gpu registers;
// asking for one in a program that does not link it says so instead of
// calling it unknown.
var gpuBackends = []string{"cuda", "hip"}

// DeviceBackend is a Backend whose kernels run on a device with memory of
// its own (the GPU backends). Benchmarks keep their data in device memory
// and time the kernels alone, with the device's own clock.
type DeviceBackend interface {
	Backend
	// Describe names the device and its library, for logs and reports.
	Describe() string
	// L2Bytes is the size of the device's last-level cache.
	L2Bytes() int64
	// PrepareDequant uploads src, whole blocks of f, and allocates the
	// output ("f32" or "f16") of the dequant kernel on the device.
	PrepareDequant(f *formats.Format, output string, src []byte) (Resident, error)
	// PrepareCopy allocates two buffers of bytes bytes for the library's
	// forge_copy kernel, the memory roofline.
	PrepareCopy(bytes int64) (Resident, error)
}

// DeviceInfo describes a device backend's device in plain values, for
// the benchmark records (runtime/bench's Meta) to copy without importing
// the device runtime. The GPU backends provide it (DeviceInfo() DeviceInfo).
type DeviceInfo struct {
	Library        string // the kernel library's path
	Name           string // "NVIDIA H100 80GB HBM3"
	Vendor         string // "nvidia" or "amd"
	Arch           string // "sm_90", "gfx1100"
	Target         string // the forge target the library was built for
	WaveSize       int
	ComputeUnits   int // SMs on NVIDIA
	MemoryBytes    uint64
	DriverVersion  int // as the vendor's runtime numbers it (CUDA: 1000·major + 10·minor)
	RuntimeVersion int
}

// Resident is a kernel whose inputs and outputs are in device memory.
type Resident interface {
	// Run launches the kernel n times back to back and returns their
	// device time in all (device events before the first and after the
	// last), once they have finished.
	Run(n int) (time.Duration, error)
	// Close frees the buffers.
	Close() error
}

// LibraryOpener opens a backend that runs a kernel library: lib is the
// library's path. It must fail, without side effects, for a library it
// cannot drive (another vendor's).
type LibraryOpener func(lib string) (Backend, error)

// opening is the cached outcome of opening a library backend.
type opening struct {
	b   Backend
	err error
}

var (
	backendMu  sync.Mutex
	openers    = map[string]func() (Backend, error){"cpu": func() (Backend, error) { return cpu.New(0), nil }}
	libOpeners = map[string]LibraryOpener{}
	opened     = map[string]Backend{}
	libOpened  = map[[2]string]opening{} // backend, library → outcome
)

// RegisterBackend makes a backend that needs no kernel library available by
// name; open is called at most once, on first use.
func RegisterBackend(name string, open func() (Backend, error)) {
	backendMu.Lock()
	defer backendMu.Unlock()
	checkNewName(name)
	openers[name] = open
}

// RegisterLibraryBackend makes a backend that runs a kernel library
// available by name; open is called at most once per library. The GPU
// runtime (runtime/backend/gpu) registers "cuda" and "hip".
func RegisterLibraryBackend(name string, open LibraryOpener) {
	backendMu.Lock()
	defer backendMu.Unlock()
	checkNewName(name)
	libOpeners[name] = open
}

func checkNewName(name string) {
	_, dup := openers[name]
	_, libDup := libOpeners[name]
	if dup || libDup || name == AutoBackend || name == "" {
		panic("suite: backend " + name + " registered twice or reserved")
	}
}

// Backends lists the available backends, sorted.
func Backends() []string {
	backendMu.Lock()
	defer backendMu.Unlock()
	return availableLocked()
}

func availableLocked() []string {
	names := make([]string, 0, len(openers)+len(libOpeners))
	for n := range openers {
		names = append(names, n)
	}
	for n := range libOpeners {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// LibraryBackends lists the available backends that run a kernel library,
// sorted.
func LibraryBackends() []string {
	backendMu.Lock()
	defer backendMu.Unlock()
	names := make([]string, 0, len(libOpeners))
	for n := range libOpeners {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Selection is a chosen backend and how it was chosen.
type Selection struct {
	Backend Backend
	Name    string // the backend's registered name: "cpu", "cuda", "hip"
	Lib     string // the kernel library it runs; "" for none
	Why     string // how it was chosen, for logs
}

// Select opens a backend by name: "" for DefaultBackend, AutoBackend, or
// a registered name. lib is the kernel library for a GPU backend; when it
// is "", the libraries FindLibraries finds are tried in turn. Backends are
// opened once per process (per library) and shared.
//
// AutoBackend picks the first library backend that opens lib (or a found
// library), else cpu; when lib is given and no backend opens it, that is
// an error rather than a quiet fall back to cpu.
func Select(name, lib string) (*Selection, error) {
	if name == "" {
		name = DefaultBackend
	}
	if name == AutoBackend {
		return selectAuto(lib)
	}
	backendMu.Lock()
	_, isLib := libOpeners[name]
	backendMu.Unlock()
	if isLib {
		return selectLibrary(name, lib)
	}
	b, err := openPlain(name)
	if err != nil {
		return nil, err
	}
	s := &Selection{Backend: b, Name: name, Why: "backend " + name}
	if lib != "" {
		s.Why += fmt.Sprintf(" (it runs no kernel library: %s ignored)", lib)
	}
	return s, nil
}

// OpenBackend returns the named backend, opening it on first use; a GPU
// backend runs a library FindLibraries finds. An unknown or unavailable
// backend is an error that says which exist.
func OpenBackend(name string) (Backend, error) {
	s, err := Select(name, "")
	if err != nil {
		return nil, err
	}
	return s.Backend, nil
}

// BackendFromEnv returns the backend $FORGE_BACKEND names ("cpu" when it is
// unset or empty), running the library $FORGE_LIB names if it is a GPU
// backend.
func BackendFromEnv() (Backend, error) {
	name := os.Getenv(EnvBackend)
	if name == "" {
		name = DefaultBackend
	}
	s, err := Select(name, os.Getenv(EnvLib))
	if err != nil {
		return nil, fmt.Errorf("$%s=%s: %w", EnvBackend, name, err)
	}
	return s.Backend, nil
}

func openPlain(name string) (Backend, error) {
	backendMu.Lock()
	defer backendMu.Unlock()
	if b, ok := opened[name]; ok {
		return b, nil
	}
	open, ok := openers[name]
	if !ok {
		avail := strings.Join(append(availableLocked(), AutoBackend), ", ")
		if slices.Contains(gpuBackends, name) {
			return nil, fmt.Errorf("backend %q is not linked into this program: import github.com/rocmforge/forge/runtime/backend/gpu (runtime/suite/suitetest does); available: %s", name, avail)
		}
		return nil, fmt.Errorf("unknown backend %q; available: %s", name, avail)
	}
	b, err := open()
	if err != nil {
		return nil, fmt.Errorf("backend %s: %w", name, err)
	}
	opened[name] = b
	return b, nil
}

// openLibrary opens backend name on library lib, once per process.
func openLibrary(name, lib string) (Backend, error) {
	if abs, err := filepath.Abs(lib); err == nil {
		lib = abs
	}
	key := [2]string{name, lib}
	backendMu.Lock()
	defer backendMu.Unlock()
	if o, ok := libOpened[key]; ok {
		return o.b, o.err
	}
	b, err := libOpeners[name](lib)
	if err != nil {
		err = fmt.Errorf("backend %s: %w", name, err)
	}
	libOpened[key] = opening{b, err}
	return b, err
}

// libraryHint says where GPU backends look for libraries.
const libraryHint = "pass -lib=/path/to/libforge_<target>.so (go test ... -args -lib=...) or set $" + EnvLib +
	", or put the library beside the executable or in ./build or <module root>/build; build one: go run ./cmd/forgegen build --target <target>"

func selectLibrary(name, lib string) (*Selection, error) {
	if lib != "" {
		b, err := openLibrary(name, lib)
		if err != nil {
			return nil, err
		}
		return &Selection{Backend: b, Name: name, Lib: lib, Why: fmt.Sprintf("backend %s with %s", name, lib)}, nil
	}
	found := FindLibraries()
	if len(found) == 0 {
		return nil, fmt.Errorf("backend %s needs a kernel library and none was given or found: %s", name, libraryHint)
	}
	var errs []error
	for _, l := range found {
		b, err := openLibrary(name, l)
		if err == nil {
			return &Selection{Backend: b, Name: name, Lib: l, Why: fmt.Sprintf("backend %s with %s (found)", name, l)}, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("backend %s: none of the libraries found opens: %w", name, errors.Join(errs...))
}

func selectAuto(lib string) (*Selection, error) {
	found, given := FindLibraries(), lib != ""
	if given {
		found = []string{lib}
	}
	var errs []error
	for _, l := range found {
		for _, name := range LibraryBackends() {
			b, err := openLibrary(name, l)
			if err == nil {
				how := "found"
				if given {
					how = "given"
				}
				return &Selection{Backend: b, Name: name, Lib: l, Why: fmt.Sprintf("auto: backend %s with %s (%s)", name, l, how)}, nil
			}
			errs = append(errs, err)
		}
	}
	if given {
		if len(errs) == 0 {
			return nil, fmt.Errorf("auto: kernel library %s given, but this program links no GPU backend (import runtime/backend/gpu)", lib)
		}
		return nil, fmt.Errorf("auto: no backend opens %s: %w", lib, errors.Join(errs...))
	}
	b, err := openPlain(DefaultBackend)
	if err != nil {
		return nil, err
	}
	var why string
	switch {
	case len(LibraryBackends()) == 0:
		why = "auto: this program links no GPU backend, using cpu"
	case len(found) == 0:
		why = "auto: no kernel library found, using cpu (" + libraryHint + ")"
	default:
		why = fmt.Sprintf("auto: no kernel library found could be opened, using cpu: %v", errors.Join(errs...))
	}
	return &Selection{Backend: b, Name: DefaultBackend, Why: why}, nil
}

// FindLibraries lists the kernel libraries (libforge_*.so) beside the
// running executable, in ./build, and in the build directory at the root
// of the Go module containing the working directory (where `go test`
// runs a package's tests, so that <module>/build serves every package),
// in that order, each directory sorted, without duplicates.
func FindLibraries() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	dirs = append(dirs, "build")
	if root := moduleRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, "build"))
	}
	var libs []string
	for _, d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, "libforge_*.so"))
		slices.Sort(matches)
		for _, m := range matches {
			if abs, err := filepath.Abs(m); err == nil {
				m = abs
			}
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() && !slices.Contains(libs, m) {
				libs = append(libs, m)
			}
		}
	}
	return libs
}

// moduleRoot is the nearest directory at or above the working directory
// that holds a go.mod, "" if none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
