// Package workloads holds the specs of forge's scenario suites: the
// memory, quantize, attention and model suites, which measure something
// other than one kernel over one format's blocks. Each spec is a
// package-level variable initialised by register; gen/load decodes them
// from source into these types (constants and composite literals only,
// never run), reports what Problems finds at the fields' lines, and gen/gogen
// writes one registration, test and benchmark per spec into
// generated/suites, calling the scenario constructor of the spec's type
// (gen/ir.WorkloadKinds: KVCache → runtime/suite/memsuite.KVCache, …).
//
// A spec's Name is its suite name, "<family>/<name>"; its Doc says what
// it measures. Sizes are in bytes, counts in elements or tokens. Quick
// lists (QuickTokens, QuickModels, …) are the cases a quick run
// (`forgebench run --quick`, `go test -short`, CI on the cpu) keeps; every
// other number and list must be set (Problems).
package workloads

// register marks a variable as a workload spec for gen/load.
func register[T any](w T) T { return w }
