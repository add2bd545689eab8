package translate_test

import (
	"go/token"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/specs/formats"
)

// TestFormatIntForm: Format completes the integer form from the Meta (Sub,
// or IntWhy) and refuses a SubBlock and methods that disagree, at the
// SubBlock field.
func TestFormatIntForm(t *testing.T) {
	pkg := loadFormats(t)
	at := token.Position{Filename: "specs/formats/x.go", Line: 3, Column: 7}
	f := &ir.Format{Meta: formats.Meta{Name: "Q4_K", SubBlock: 32}, BlockType: "BlockQ4_K", Fields: ir.Positions{"SubBlock": at}}
	dev, err := translate.Format(pkg, f)
	if err != nil {
		t.Fatal(err)
	}
	if in := dev.Int; in == nil || in.Sub != 32 || in.Align != 4 || in.Codes != "forge_BlockQ4_K_Codes" ||
		in.Scale != "forge_BlockQ4_K_Scale" || in.Offset != "forge_BlockQ4_K_Offset" || dev.IntWhy != "" {
		t.Errorf("Q4_K: Int %+v, IntWhy %q", dev.Int, dev.IntWhy)
	}
	// Not static: the kernels call them.
	for _, decl := range []string{"uint32_t forge_BlockQ4_K_Codes(", "float forge_BlockQ4_K_Scale(", "float forge_BlockQ4_K_Offset("} {
		if !strings.Contains(dev.Code, "\nFORGE_DEVICE "+decl) {
			t.Errorf("Q4_K: no FORGE_DEVICE %s...) in the code", decl)
		}
	}
	f = &ir.Format{Meta: formats.Meta{Name: "Q8_0", SubBlock: 32}, BlockType: "BlockQ8_0"}
	if dev, err := translate.Format(pkg, f); err != nil || dev.Int.Offset != "" || dev.Int.Align != 2 {
		t.Errorf("Q8_0: %v, %+v", err, dev)
	}
	f = &ir.Format{Meta: formats.Meta{Name: "F16", NoIntForm: "floats"}, BlockType: "BlockF16"}
	if dev, err := translate.Format(pkg, f); err != nil || dev.Int != nil || dev.IntWhy != "floats" {
		t.Errorf("F16: %v, %+v", err, dev)
	}
	f = &ir.Format{Meta: formats.Meta{Name: "F16", SubBlock: 16}, BlockType: "BlockF16", Fields: ir.Positions{"SubBlock": at}}
	if _, err := translate.Format(pkg, f); err == nil || err.Error() != "specs/formats/x.go:3:7: format F16: SubBlock 16 declares an integer form, but BlockF16 has no Codes and Scale methods" {
		t.Errorf("F16 with a SubBlock: %v", err)
	}
	// Q6_K's super form has no SuperOffset: its offsets are -32·Scale, which
	// only its IntZero accounts for; without it the form is incomplete.
	f = &ir.Format{Meta: formats.Meta{Name: "Q6_K", SubBlock: 16, IntZero: 32}, BlockType: "BlockQ6_K"}
	if dev, err := translate.Format(pkg, f); err != nil || dev.Int.SuperScale != "forge_BlockQ6_K_SuperScale" || dev.Int.SuperOffset != "" {
		t.Errorf("Q6_K: %v, %+v", err, dev)
	}
	f = &ir.Format{Meta: formats.Meta{Name: "Q6_K", SubBlock: 16}, BlockType: "BlockQ6_K", Fields: ir.Positions{"SubBlock": at}}
	if _, err := translate.Format(pkg, f); err == nil || err.Error() != "specs/formats/x.go:3:7: format Q6_K: BlockQ6_K has a super form (SuperScale, SubScale) and offsets that no IntZero accounts for, but no SuperOffset and SubOffset" {
		t.Errorf("Q6_K without its IntZero: %v", err)
	}
	f = &ir.Format{Meta: formats.Meta{Name: "Q4_K"}, BlockType: "BlockQ4_K", Pos: at}
	if _, err := translate.Format(pkg, f); err == nil || !strings.Contains(err.Error(), "specs/formats/x.go:3:7: format Q4_K: BlockQ4_K defines the integer form (Codes, Scale), but Meta.SubBlock is 0") {
		t.Errorf("Q4_K without a SubBlock: %v", err)
	}
}
