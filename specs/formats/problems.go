package formats

import "github.com/rocmforge/forge/specs/check"

// Problems lists what is wrong with a format's metadata: a Name usable in
// file and symbol names, a ggml id or NoGGMLType, whole 32-lane groups of
// elements per block (or one, a scalar format), a size, an integer-form
// sub-block of 16 or 32 that divides the block (or none), a Doc. Checks
// across formats (unique names and ids) and against the block struct (its
// size) are gen/load's.
func (m Meta) Problems() []check.Problem {
	var l check.List
	if !upperName(m.Name) {
		l.Add("Name", "Name %q must be upper-case letters, digits and underscores, starting with a letter", m.Name)
	}
	if m.GGMLType < NoGGMLType {
		l.Add("GGMLType", "GGMLType %d (use NoGGMLType for none)", m.GGMLType)
	}
	// Scalar formats (F32, F16, BF16) are element-wise; every quantized
	// block must fill whole 32-lane groups of the kernels.
	if m.BlockElems != 1 && (m.BlockElems <= 0 || m.BlockElems%32 != 0) {
		l.Add("BlockElems", "BlockElems %d must be 1 (a scalar format) or a positive multiple of 32", m.BlockElems)
	}
	if m.BlockBytes <= 0 {
		l.Add("BlockBytes", "BlockBytes %d must be positive", m.BlockBytes)
	}
	switch {
	case m.SubBlock != 0 && m.SubBlock != 16 && m.SubBlock != 32:
		l.Add("SubBlock", "SubBlock %d must be 16 or 32 (elements per sub-block of the integer form), or 0 for none", m.SubBlock)
	case m.SubBlock != 0 && m.BlockElems%m.SubBlock != 0:
		l.Add("SubBlock", "SubBlock %d must divide BlockElems %d", m.SubBlock, m.BlockElems)
	case m.SubBlock == 0 && m.IntExact:
		l.Add("IntExact", "IntExact needs an integer form (SubBlock 16 or 32)")
	case m.SubBlock == 0 && m.IntZero != 0:
		l.Add("IntZero", "IntZero needs an integer form (SubBlock 16 or 32)")
	case m.IntZero != 0 && m.IntExact:
		l.Add("IntZero", "IntZero %d with IntExact: an exact Scale·code + Offset needs no zero code; declare one", m.IntZero)
	case m.IntZero < 0 || m.IntZero > 127:
		l.Add("IntZero", "IntZero %d must be a code of the int8 form, 1 to 127 (or 0 for none)", m.IntZero)
	case m.SubBlock != 0 && m.NoIntForm != "":
		l.Add("NoIntForm", "NoIntForm says why there is no integer form, but SubBlock %d declares one; leave it empty", m.SubBlock)
	}
	if m.IEEE != "" {
		if n, ok := ieeeBytes[m.IEEE]; !ok {
			l.Add("IEEE", "IEEE %q must be binary16, bfloat16, binary32 or empty", m.IEEE)
		} else if m.BlockElems != 1 || m.BlockBytes != n {
			l.Add("IEEE", "IEEE %s needs one element in %d bytes per block, not %d in %d", m.IEEE, n, m.BlockElems, m.BlockBytes)
		}
	}
	if m.Doc == "" {
		l.Add("", "Doc is empty; give one line saying what the format is")
	}
	return l
}

func upperName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
