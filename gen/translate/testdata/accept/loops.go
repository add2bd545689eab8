package accept

// BlockLoops: three-clause loops in every accepted form, range over an
// integer constant (with and without a variable), break and continue, and a
// float32 sum whose order of additions is Go's.
type BlockLoops struct {
	D  float32
	Qs [32]int8
}

const n32 = int32(32)

func (b *BlockLoops) Dequant(j int32) float32 {
	var sum float32
	for i := int32(0); i < 32; i++ {
		if i > j {
			break
		}
		sum += float32(float32(b.Qs[i]) * b.D) // float32(): Go may not fuse it into an FMA either
	}
	var cnt uint8
	for i := uint8(255); i >= 250; i-- {
		cnt += i & 1
	}
	for i := int32(30); i > 0; i -= 7 {
		if b.Qs[i]&1 == 0 {
			continue
		}
		cnt++
	}
	for i := int8(0); i <= 127; i += 64 { // i wraps from 64 to -128, as in Go
		cnt += uint8(i)
		if i < 0 {
			break
		}
	}
	for i := range n32 {
		if i == j {
			cnt += uint8(b.Qs[i])
		}
	}
	for range 3 {
		cnt *= 3
	}
	for k := range int16(4) {
		cnt ^= uint8(k)
	}
	for i := uint16(0); i != 10; i += 5 {
		cnt += uint8(i)
	}
	return sum + float32(cnt)
}
