// Package abitest is a fake kernel library for tests of the generated cgo
// wrappers (generated/kernels): real C functions with the launchers' C ABI,
// resolved by symbol name as the GPU runtime resolves a loaded library's
// symbols with dlsym, working on host memory instead of device memory.
//
// Every kernel symbol resolves to its own recording launcher of the
// symbol's C signature (Options.Kernels says which), which notes its
// arguments and returns a chosen code, so a test can check that each
// generated wrapper calls its own symbol with its own arguments. The Q4_0
// launchers (HostKernels) really decode, in C, so a test can check the
// data path through a trampoline end to end against the Go spec.
//
// The fake's state is C globals: Open takes a package-wide lock that Close
// releases, so tests using it run one at a time.
//
// The fake is C, so the package is empty in a build without cgo, where
// generated/kernels' tests that use it are left out too.
package abitest
