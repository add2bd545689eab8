package ir

import (
	"go/token"
	"strings"
)

// Positions are where a spec literal's parts are in its source (Filename
// relative to the module root), by path from the literal: "" is the
// literal itself, "MatMul" the value of its MatMul field, "MatMul.TileRows"
// that literal's TileRows, "Kernels[1].Output" a list element's field.
// gen/load records one for every value the literal spells out.
type Positions map[string]token.Position

// Of is the position to report a problem with the field at path: its
// value's, or when the literal leaves that field out, the innermost
// enclosing value's that it spells out (the literal, at worst).
func (p Positions) Of(path string) token.Position {
	for {
		if pos, ok := p[path]; ok {
			return pos
		}
		if path == "" {
			return token.Position{}
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			i = 0
		}
		path = path[:i]
	}
}
