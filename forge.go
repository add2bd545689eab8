// Package forge is the root of forge, a code-generation toolchain for GPU
// quantization kernels: format specs in specs/ become HIP kernels, cgo
// wrappers and Go suites in generated/ (see gen), which the runtime and
// forgebench execute. This package holds only the go:generate directive.
package forge

//go:generate go run ./cmd/forgegen generate
