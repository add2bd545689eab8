// Package suiteflags defines the test flags that choose the backend of
// forge's generated suites: -backend and -lib (go test ./generated/...
// -args -backend=cuda -lib=build/libforge_sm_90.so). runtime/suite/suitetest
// reads them; they win over $FORGE_BACKEND and $FORGE_LIB.
//
// It is a leaf package of its own, imported for its side effect, so that
// every test binary of a `go test ./generated/...` run accepts the flags,
// including those (generated/kernels) that cannot import suitetest, which
// depends on the GPU runtime and through it on generated/kernels. Only
// test binaries import it: a program's flags are its own business.
package suiteflags

import "flag"

var (
	backend = flag.String("backend", "", "forge backend the generated suites run on: cpu, cuda, hip or auto (default $FORGE_BACKEND, else cpu)")
	lib     = flag.String("lib", "", "kernel library (libforge_<target>.so) a GPU backend runs (default $FORGE_LIB, else searched beside the test binary and in build/)")
)

// Backend is the -backend flag, "" when not given.
func Backend() string { return *backend }

// Lib is the -lib flag, "" when not given.
func Lib() string { return *lib }

// Set sets the flags, for tests of the selection; it returns a function
// that restores the previous values.
func Set(backendFlag, libFlag string) (restore func()) {
	b, l := *backend, *lib
	*backend, *lib = backendFlag, libFlag
	return func() { *backend, *lib = b, l }
}
