package ir

import (
	"go/token"
	"testing"
)

func TestPositionsOf(t *testing.T) {
	at := func(line int) token.Position {
		return token.Position{Filename: "specs/targets/amd.go", Line: line, Column: 1}
	}
	p := Positions{"": at(1), "MatMul": at(2), "MatMul.TileRows": at(3), "Kernels": at(4), "Kernels[1]": at(5), "Kernels[1].Name": at(6)}
	for path, want := range map[string]int{
		"":                  1,
		"MatMul.TileRows":   3,
		"MatMul.TileCols":   2, // left out: the MatMul literal
		"Dequant.Chunk":     1, // no Dequant literal: the whole one
		"WaveSize":          1,
		"Kernels[1].Name":   6,
		"Kernels[1].Output": 5,
		"Kernels[0].Name":   4,
		"Kernels[1]":        5,
	} {
		if got := p.Of(path); got != at(want) {
			t.Errorf("Of(%q) = %v, want line %d", path, got, want)
		}
	}
	if got := (Positions{}).Of("A.B"); got.IsValid() {
		t.Errorf("empty: %v", got)
	}
}
