package reject

// Statements outside the subset.

type BlockStatements struct {
	Qs [8]uint8
}

func (b *BlockStatements) Dequant(j int32) float32 {
	var acc uint8
	go func() {}()    // ERROR "go statements \(goroutines\) are not in the device subset"
	defer func() {}() // ERROR "defer is not in the device subset"
	for {             // ERROR "for loops must have constant bounds"
		break
	}
	for acc < 10 { // ERROR "for loops must have constant bounds"
		acc++
	}
	for i := int32(0); i < j; i++ { // ERROR "for loops must have constant bounds"
		acc++
	}
	for i := int32(0); i < 4; i++ {
		i++ // ERROR "loop variable i is assigned in the loop body; for loops need constant bounds"
	}
	for i := range 4 { // ERROR "loop variable i has type int, which is not in the device subset; write for i := range int32\(4\)"
		acc += uint8(i)
	}
	for i := range b.Qs { // ERROR "range over an array \(its index would be an int\) is not in the device subset"
		acc += b.Qs[i]
	}
outer: // ERROR "labels are not in the device subset"
	for i := int32(0); i < 2; i++ {
		break outer
	}
	switch acc {
	case 1:
		acc = 2
		fallthrough // ERROR "fallthrough is not in the device subset"
	case 2:
		break // ERROR "break inside a switch is not in the device subset"
	}
	if acc == 7 {
		panic("seven") // ERROR "panic is not in the device subset"
	}
	select {} // ERROR "select is not in the device subset"
}
