// Package translate translates format specs' Go (a block struct, its Dequant
// method, and the helpers and tables Dequant uses) into HIP C++ device code.
//
// (API stub: the implementation and the subset's documentation land with the
// translator.)
package translate

import (
	"errors"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/rocmforge/forge/gen/model"
)

// Package is a type-checked spec package.
type Package struct {
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info
	Root  string // module root; positions in errors and #line directives are relative to it
}

// Error is one construct outside the subset, at its position.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every error found, sorted by position.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := ""
	for i, e := range l {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Block translates the struct typeName and its Dequant method, with every
// helper function and table Dequant reaches, into self-contained HIP. The
// error, if any, is an ErrorList.
func Block(pkg *Package, typeName string) (*model.Device, error) {
	return nil, errors.New("translate: not implemented")
}
