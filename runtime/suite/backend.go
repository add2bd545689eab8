package suite

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/rocmforge/forge/runtime/cpu"
)

// EnvBackend names the backend that `go test` runs the generated suites on.
const EnvBackend = "FORGE_BACKEND"

// DefaultBackend is the backend used when EnvBackend is unset or empty.
const DefaultBackend = "cpu"

// plannedBackends are backends forge's design names that do not exist yet;
// asking for one says so instead of calling it unknown.
var plannedBackends = []string{"cuda", "hip"}

var (
	backendMu sync.Mutex
	openers   = map[string]func() (Backend, error){
		"cpu": func() (Backend, error) { return cpu.New(0), nil },
	}
	opened = map[string]Backend{}
)

// RegisterBackend makes a backend available by name; open is called at
// most once, on first use. The GPU runtime registers "hip" and "cuda".
func RegisterBackend(name string, open func() (Backend, error)) {
	backendMu.Lock()
	defer backendMu.Unlock()
	if _, dup := openers[name]; dup {
		panic("suite: backend " + name + " registered twice")
	}
	openers[name] = open
}

// Backends lists the available backends, sorted.
func Backends() []string {
	backendMu.Lock()
	defer backendMu.Unlock()
	names := make([]string, 0, len(openers))
	for n := range openers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// OpenBackend returns the named backend, opening it on first use. An
// unknown or unavailable backend is an error that says which exist.
func OpenBackend(name string) (Backend, error) {
	backendMu.Lock()
	defer backendMu.Unlock()
	if b, ok := opened[name]; ok {
		return b, nil
	}
	open, ok := openers[name]
	if !ok {
		avail := make([]string, 0, len(openers))
		for n := range openers {
			avail = append(avail, n)
		}
		slices.Sort(avail)
		if slices.Contains(plannedBackends, name) {
			return nil, fmt.Errorf("backend %q is not available yet: forge's GPU backends (%s) come with the kernel-library runtime; available: %s",
				name, strings.Join(plannedBackends, ", "), strings.Join(avail, ", "))
		}
		return nil, fmt.Errorf("unknown backend %q; available: %s", name, strings.Join(avail, ", "))
	}
	b, err := open()
	if err != nil {
		return nil, fmt.Errorf("backend %s: %w", name, err)
	}
	opened[name] = b
	return b, nil
}

// BackendFromEnv returns the backend $FORGE_BACKEND names, "cpu" when it
// is unset or empty.
func BackendFromEnv() (Backend, error) {
	name := os.Getenv(EnvBackend)
	if name == "" {
		name = DefaultBackend
	}
	b, err := OpenBackend(name)
	if err != nil {
		return nil, fmt.Errorf("$%s=%s: %w", EnvBackend, name, err)
	}
	return b, nil
}
