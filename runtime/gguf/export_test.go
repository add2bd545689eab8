package gguf

// What the reader charges against MaxHeaderMemory, for the tests that fill
// it exactly.
const (
	KVCost         = kvCost
	TensorCost     = tensorCost
	ArrayCost      = arrayCost
	StringElemCost = stringElemCost
	ArrayElemCost  = arrayElemCost
)
