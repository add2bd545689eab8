//go:build !cgo

package gpu

import "github.com/rocmforge/forge/generated/kernels"

// haveCgo is false: this binary cannot dlopen, so Open returns ErrNoCgo
// before it would call load.
const haveCgo = false

func load(string, int) (runtimeLib, *kernels.Library, error) { return nil, nil, ErrNoCgo }
