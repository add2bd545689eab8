package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// knownBackends are forge's backends and the packages that register them,
// so that asking for one in a program that does not link it says what to
// import instead of calling it unknown.
var knownBackends = map[string]string{
	"cpu":  "github.com/rocmforge/forge/runtime/backend/cpu",
	"cuda": "github.com/rocmforge/forge/runtime/backend/gpu",
	"hip":  "github.com/rocmforge/forge/runtime/backend/gpu",
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
	mu         sync.Mutex
	openers    = map[string]func() (Backend, error){}
	libOpeners = map[string]LibraryOpener{}
	opened     = map[string]Backend{}
	libOpened  = map[[2]string]opening{} // backend, library → outcome
)

// Register makes a backend that needs no kernel library available by
// name; open is called at most once, on first use. The cpu backend
// (runtime/backend/cpu) registers "cpu".
func Register(name string, open func() (Backend, error)) {
	mu.Lock()
	defer mu.Unlock()
	checkNewName(name)
	openers[name] = open
}

// RegisterLibrary makes a backend that runs a kernel library available by
// name; open is called at most once per library. The GPU backends
// (runtime/backend/gpu) register "cuda" and "hip".
func RegisterLibrary(name string, open LibraryOpener) {
	mu.Lock()
	defer mu.Unlock()
	checkNewName(name)
	libOpeners[name] = open
}

func checkNewName(name string) {
	_, dup := openers[name]
	_, libDup := libOpeners[name]
	if dup || libDup || name == AutoBackend || name == "" {
		panic("backend: " + name + " registered twice or reserved")
	}
}

// Backends lists the available backends, sorted.
func Backends() []string {
	mu.Lock()
	defer mu.Unlock()
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
	mu.Lock()
	defer mu.Unlock()
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
	// Fallback is why AutoBackend fell back to the cpu, nil otherwise: a
	// *NoLibraryError when no kernel library was found, so that a
	// program can say where it looks in its own words.
	Fallback error
}

// Select opens a backend by name: "" for DefaultBackend, AutoBackend, or
// a registered name. lib is the kernel library for a GPU backend; when it
// is "", the libraries FindLibraries finds are tried in turn. Backends are
// opened once per process (per library) and shared.
//
// AutoBackend picks the first library backend that opens lib (or a found
// library), else cpu; when lib is given and no backend opens it, that is
// an error rather than a quiet fall back to cpu. A library backend given
// no library and finding none returns a *NoLibraryError.
func Select(name, lib string) (*Selection, error) {
	if name == "" {
		name = DefaultBackend
	}
	if name == AutoBackend {
		return selectAuto(lib)
	}
	mu.Lock()
	_, isLib := libOpeners[name]
	mu.Unlock()
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

// Open returns the named backend, opening it on first use; a GPU backend
// runs a library FindLibraries finds. An unknown or unavailable backend is
// an error that says which exist.
func Open(name string) (Backend, error) {
	s, err := Select(name, "")
	if err != nil {
		return nil, err
	}
	return s.Backend, nil
}

// FromEnv returns the backend $FORGE_BACKEND names ("cpu" when it is
// unset or empty), running the library $FORGE_LIB names if it is a GPU
// backend.
func FromEnv() (Backend, error) {
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
	mu.Lock()
	defer mu.Unlock()
	if b, ok := opened[name]; ok {
		return b, nil
	}
	open, ok := openers[name]
	if !ok {
		avail := strings.Join(append(availableLocked(), AutoBackend), ", ")
		if pkg, known := knownBackends[name]; known {
			return nil, fmt.Errorf("backend %q is not linked into this program: import %s (runtime/suite/suitetest does); available: %s", name, pkg, avail)
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
	mu.Lock()
	defer mu.Unlock()
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
		return nil, &NoLibraryError{Backend: name, Dirs: LibraryDirs()}
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
			return nil, fmt.Errorf("auto: kernel library %s given, but this program links no GPU backend (import %s)", lib, knownBackends["cuda"])
		}
		return nil, fmt.Errorf("auto: no backend opens %s: %w", lib, errors.Join(errs...))
	}
	b, err := openPlain(DefaultBackend)
	if err != nil {
		return nil, err
	}
	s := &Selection{Backend: b, Name: DefaultBackend}
	switch {
	case len(LibraryBackends()) == 0:
		s.Why = "auto: this program links no GPU backend, using cpu"
		if why := gpuUnavailable(); why != nil {
			// The GPU backends are linked but cannot load a library (a
			// binary built without cgo): say why rather than "no backend".
			s.Why = fmt.Sprintf("auto: %v; using cpu", why)
		}
	case len(found) == 0:
		nl := &NoLibraryError{Backend: AutoBackend, Dirs: LibraryDirs()}
		s.Fallback = nl
		s.Why = "auto: no kernel library found, using cpu (" + nl.Hint("-lib") + ")"
	default:
		s.Fallback = errors.Join(errs...)
		s.Why = fmt.Sprintf("auto: no kernel library found could be opened, using cpu: %v", s.Fallback)
	}
	return s, nil
}

// DeviceInfo describes a device backend's device in plain values, for the
// benchmark records (runtime/bench's Meta) to copy without importing the
// device runtime, so that they build without cgo. The GPU backends provide
// it (DeviceInfo() DeviceInfo).
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

// gpuUnavailable returns why a GPU backend that is registered but cannot
// load kernel libraries fails to open, or nil when none is registered so.
func gpuUnavailable() error {
	for _, name := range []string{"cuda", "hip"} {
		mu.Lock()
		open, ok := openers[name]
		mu.Unlock()
		if !ok {
			continue
		}
		if _, err := open(); err != nil {
			return fmt.Errorf("backend %s: %w", name, err)
		}
	}
	return nil
}
