package families

import "strconv"

// AttentionFamily is the flash-attention forward family. It is not
// format-specific (Family is it as a Shared family): each target's library
// gets one generated file, generated/hip/<target>/attention.hip (from
// templates/hip/attention.hip.tmpl), with one launcher per input type ×
// head dimension listed here:
//
//	int forge_attention_<dtype>_d<dim>(const void* q, const void* k, const void* v, void* o,
//	        int64_t batch, int64_t heads, int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
//	        float scale, int32_t causal, forge_stream_t stream);
//
// The template documents the contract (layout [batch, heads, seq, dim],
// grouped-query heads, bottom-right causal masking). The tuning is each
// target's Attention field (specs/targets.AttentionTuning). gen/load
// collects the registerAttention call with its own collector and reports
// Problems: DTypes a non-empty subset of "f16" and "f32", HeadDims
// distinct multiples of 16 in [16, 256].
type AttentionFamily struct {
	Name     string // "attention": the template's and the generated file's name
	Doc      string
	DTypes   []string // input (and output) element types: "f16", "f32"
	HeadDims []int    // head dimensions with a launcher each
}

// registerAttention marks the attention family spec for gen/load.
func registerAttention(a AttentionFamily) *AttentionFamily { return &a }

// Attention is forge's flash-attention forward family.
var Attention = registerAttention(AttentionFamily{
	Name:     "attention",
	Doc:      "flash-attention forward (online softmax), f16 and f32, not format-specific",
	DTypes:   []string{"f16", "f32"},
	HeadDims: []int{64, 128},
})

// AttentionKernel is the kernel name of the attention launcher for input
// type dtype and head dimension headDim: "attention_f16_d128" (its
// launcher is forge_attention_f16_d128).
func AttentionKernel(dtype string, headDim int) string {
	return "attention_" + dtype + "_d" + strconv.Itoa(headDim)
}

// Family is the attention family as a Shared family of the "attention"
// signature: one kernel per input type × head dimension, by input type
// then head dimension, each writing its input type.
func (a *AttentionFamily) Family() *Family {
	f := &Family{Name: a.Name, Doc: a.Doc, Signature: "attention", Shared: true}
	for _, d := range a.DTypes {
		for _, h := range a.HeadDims {
			f.Kernels = append(f.Kernels, Kernel{Name: AttentionKernel(d, h), Output: d, HeadDim: h})
		}
	}
	return f
}
