// Package gen is forge's generator: it turns the specs under specs/ into
// everything under generated/ — HIP kernels for every format, target and
// kernel family, cgo wrappers, and Go test and benchmark suites.
//
// The pipeline is a sequence of small steps, each in its own package:
//
//	gen/load       read and validate the specs from source (go/packages)
//	gen/translate  translate each format's Dequant and integer form into HIP device code
//	gen/hipgen     render templates/hip for every target × format × family
//	gen/gogen      render the Go wrappers and suites with jennifer
//	gen            compare with the tree and write (this package)
//
// Every file is rendered in memory first; nothing is written unless every
// step succeeded, so a bad spec leaves generated/ exactly as it was. Only
// files whose content changed are written (atomically), and generated files
// that no spec produces any more are deleted. Output is deterministic.
//
// The Go subset that spec Dequant bodies may use is documented in
// gen/translate.
package gen

import (
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/gen/translate"
)

// Render loads the specs of the module at root and renders every generated
// file in memory. Errors from all formats are collected.
func Render(root string) (*ir.Spec, []ir.File, error) {
	r, err := load.Load(root)
	if err != nil {
		return nil, nil, err
	}
	var errs translate.ErrorList
	for _, f := range r.Spec.Formats {
		dev, err := translate.Format(r.Formats, f)
		if err != nil {
			if list, ok := err.(translate.ErrorList); ok {
				errs = append(errs, list...)
				continue
			}
			return nil, nil, err
		}
		f.Device = dev
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	var files []ir.File
	for _, render := range renderers {
		fs, err := render(r.Spec)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, fs...)
	}
	return r.Spec, files, nil
}

// Generate renders everything and brings generated/ under root in line with
// it, returning what changed.
func Generate(root string) ([]Change, error) {
	_, files, err := Render(root)
	if err != nil {
		return nil, err
	}
	changes, err := Diff(root, files)
	if err != nil {
		return nil, err
	}
	return changes, Apply(root, files, changes)
}

// Check renders everything and reports what Generate would change; an empty
// result means generated/ is in sync with the specs.
func Check(root string) ([]Change, error) {
	_, files, err := Render(root)
	if err != nil {
		return nil, err
	}
	return Diff(root, files)
}
