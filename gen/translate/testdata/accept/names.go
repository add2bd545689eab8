package accept

// BlockNames: Go names that are C++ keywords, macros or reserved spellings
// are renamed; a blank field becomes padding with a name.
type BlockNames struct {
	Class  uint8
	_      uint8
	delete int16
}

func (b *BlockNames) Dequant(j int32) float32 {
	this := int32(b.Class)
	new := int32(b.delete)
	linux := this + new
	NULL := j
	__x := int32(1)
	_Y := int32(2)
	forge_q := int32(3)
	float := float32(linux) + float32(NULL)
	x := this
	{
		x := x * 2
		this := x + 1
		float += float32(this)
	}
	return float + float32(x+__x+_Y+forge_q)
}
