package cpu

import (
	"math"

	"github.com/rocmforge/forge/specs/formats"
)

// The model glue on the cpu: the Go references of the glue launchers
// (templates/hip/glue.hip.tmpl has their contract), which the cpu forward
// of runtime/suite/modelsuite composes and the host tests of the generated glue
// compare with. Sums and transcendental functions in float64, each result
// rounded to float32 once.

// RMSNorm sets y[r,:] = x[r,:]·w / sqrt(mean_j x[r,j]² + eps) for rows rows
// of dim values (y may be x).
func RMSNorm(x, w, y []float32, rows, dim int, eps float32) {
	for r := range rows {
		xr, yr := x[r*dim:(r+1)*dim], y[r*dim:(r+1)*dim]
		var s float64
		for _, v := range xr {
			s += float64(v) * float64(v)
		}
		inv := 1 / math.Sqrt(s/float64(dim)+float64(eps))
		for j, v := range xr {
			yr[j] = float32(float64(v) * inv * float64(w[j]))
		}
	}
}

// RoPE rotates x in place: token-major [seq, heads, headDim], token t at
// position pos+t, pair i by the angle (pos+t)·theta^(-2i/headDim); neox
// false pairs (2i, 2i+1) (llama's, GPT-J style), true (i, i+headDim/2).
func RoPE(x []float32, seq, heads, headDim, pos int, theta float64, neox bool) {
	half := headDim / 2
	for t := range seq {
		p := float64(pos + t)
		for h := range heads {
			row := x[(t*heads+h)*headDim : (t*heads+h+1)*headDim]
			for i := range half {
				ang := p * math.Pow(theta, -float64(2*i)/float64(headDim))
				s, c := math.Sincos(ang)
				ia, ib := 2*i, 2*i+1
				if neox {
					ia, ib = i, i+half
				}
				a, b := float64(row[ia]), float64(row[ib])
				row[ia] = float32(a*c - b*s)
				row[ib] = float32(a*s + b*c)
			}
		}
	}
}

// SiLUMul sets out[i] = silu(gate[i])·up[i] (out may be gate or up).
func SiLUMul(gate, up, out []float32) {
	for i, g := range gate {
		x := float64(g)
		out[i] = float32(x / (1 + math.Exp(-x)) * float64(up[i]))
	}
}

// Add sets out[i] = a[i] + b[i] (out may be a or b).
func Add(a, b, out []float32) {
	for i, x := range a {
		out[i] = x + b[i]
	}
}

// ToHeads copies token-major src [seq, heads, headDim] into rows
// pos..pos+seq-1 of head-major dst [heads, capacity, headDim], each value
// rounded to f16 (and widened back): what the f16 attention inputs hold.
func ToHeads(src, dst []float32, seq, heads, headDim, pos, capacity int) {
	for t := range seq {
		for h := range heads {
			s := src[(t*heads+h)*headDim : (t*heads+h+1)*headDim]
			d := dst[(h*capacity+pos+t)*headDim : (h*capacity+pos+t+1)*headDim]
			for j, v := range s {
				d[j] = formats.HalfFromFloat32(v).Float32()
			}
		}
	}
}

// ToTokens copies rows pos..pos+seq-1 of head-major src [heads, capacity,
// headDim] into token-major dst [seq, heads, headDim].
func ToTokens(src, dst []float32, seq, heads, headDim, pos, capacity int) {
	for t := range seq {
		for h := range heads {
			copy(dst[(t*heads+h)*headDim:(t*heads+h+1)*headDim], src[(h*capacity+pos+t)*headDim:(h*capacity+pos+t+1)*headDim])
		}
	}
}
