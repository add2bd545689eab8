package cpu

import (
	"math"
	"testing"
)

func attn(t *testing.T, s AttentionShape, q, k, v []float32) []float32 {
	t.Helper()
	o := make([]float32, s.QElems())
	if err := New(2).AttentionRef(s, q, k, v, o); err != nil {
		t.Fatal(err)
	}
	return o
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// A hand-computed case: scores [1, 0] → weights e/(e+1), 1/(e+1).
func TestAttentionTiny(t *testing.T) {
	s := AttentionShape{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 1, SeqKV: 2, HeadDim: 2, Scale: 1}
	o := attn(t, s, []float32{1, 0}, []float32{1, 0, 0, 1}, []float32{1, 2, 3, 4})
	e := math.E
	p0, p1 := e/(e+1), 1/(e+1)
	if want := []float64{p0*1 + p1*3, p0*2 + p1*4}; !near(float64(o[0]), want[0]) || !near(float64(o[1]), want[1]) {
		t.Errorf("o = %v, want %v", o, want)
	}
	// Scale multiplies the scores: scale 0 is the plain average of v.
	s.Scale = 0
	o = attn(t, s, []float32{1, 0}, []float32{1, 0, 0, 1}, []float32{1, 2, 3, 4})
	if !near(float64(o[0]), 2) || !near(float64(o[1]), 3) {
		t.Errorf("scale 0: o = %v, want [2 3]", o)
	}
	// Scale 2: scores [2, 0].
	s.Scale = 2
	o = attn(t, s, []float32{1, 0}, []float32{1, 0, 0, 1}, []float32{1, 2, 3, 4})
	e2 := math.Exp(2)
	if want := (e2*1 + 3) / (e2 + 1); !near(float64(o[0]), want) {
		t.Errorf("scale 2: o[0] = %v, want %v", o[0], want)
	}
}

// Every attended row's weights sum to 1: with v all ones, o is all ones
// (and zeros for a row that attends nothing).
func TestAttentionRowsSumToOne(t *testing.T) {
	for _, causal := range []bool{false, true} {
		s := AttentionShape{Batch: 2, Heads: 4, HeadsKV: 2, SeqQ: 9, SeqKV: 7, HeadDim: 8, Scale: 0.7, Causal: causal}
		q, k, v := make([]float32, s.QElems()), make([]float32, s.KVElems()), make([]float32, s.KVElems())
		for i := range q {
			q[i] = float32(math.Sin(float64(i)))
		}
		for i := range k {
			k[i] = float32(math.Cos(float64(3 * i)))
			v[i] = 1
		}
		o := attn(t, s, q, k, v)
		for x := range s.Batch * s.Heads {
			for i := range s.SeqQ {
				want := 1.0
				if s.Attended(i) == 0 {
					want = 0
				}
				for c := range s.HeadDim {
					if got := o[(x*s.SeqQ+i)*s.HeadDim+c]; !near(float64(got), want) {
						t.Fatalf("causal=%v head %d row %d: o = %v, want %v", causal, x, i, got, want)
					}
				}
			}
		}
	}
}

// Causal masking is bottom-right aligned: row i attends keys
// j <= i + seq_kv - seq_q; one query over many keys sees them all.
func TestAttentionCausal(t *testing.T) {
	s := AttentionShape{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 3, SeqKV: 2, HeadDim: 1, Scale: 1, Causal: true}
	if got := []int{s.Attended(0), s.Attended(1), s.Attended(2)}; got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("attended %v, want [0 1 2]", got)
	}
	o := attn(t, s, []float32{1, 1, 1}, []float32{0, 5}, []float32{10, 20})
	if o[0] != 0 || o[1] != 10 || !near(float64(o[2]), (10+20*math.Exp(5))/(1+math.Exp(5))) {
		t.Errorf("o = %v", o)
	}
	if p := s.Pairs(); p != 3 {
		t.Errorf("pairs %d, want 3", p)
	}
	// seq_q = 1 (decode): causal sees every key.
	d := AttentionShape{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 1, SeqKV: 5, HeadDim: 1, Scale: 1}
	kv := []float32{1, 2, 3, 4, 5}
	full := attn(t, d, []float32{0.3}, kv, kv)
	d.Causal = true
	if c := attn(t, d, []float32{0.3}, kv, kv); c[0] != full[0] {
		t.Errorf("decode: causal %v, full %v", c, full)
	}
	// Square causal: s(s+1)/2 pairs; FLOPs count them.
	sq := AttentionShape{Batch: 2, Heads: 3, HeadsKV: 3, SeqQ: 10, SeqKV: 10, HeadDim: 4, Causal: true}
	if sq.Pairs() != 55 || sq.FLOPs() != 4*2*3*4*55 {
		t.Errorf("pairs %d flops %g", sq.Pairs(), sq.FLOPs())
	}
}

// Grouped-query heads: query head h reads key/value head h/(heads/heads_kv).
func TestAttentionGQA(t *testing.T) {
	s := AttentionShape{Batch: 2, Heads: 4, HeadsKV: 2, SeqQ: 3, SeqKV: 5, HeadDim: 4, Scale: 0.5}
	q, k, v := make([]float32, s.QElems()), make([]float32, s.KVElems()), make([]float32, s.KVElems())
	for i := range q {
		q[i] = float32(math.Sin(float64(i) * 0.37))
	}
	for i := range k {
		k[i], v[i] = float32(math.Cos(float64(i)*0.11)), float32(i%7)
	}
	o := attn(t, s, q, k, v)
	one := AttentionShape{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 3, SeqKV: 5, HeadDim: 4, Scale: 0.5}
	for b := range 2 {
		for h := range 4 {
			x, xkv := b*4+h, b*2+h/2
			n, m := 3*4, 5*4
			got := o[x*n : (x+1)*n]
			want := attn(t, one, q[x*n:(x+1)*n], k[xkv*m:(xkv+1)*m], v[xkv*m:(xkv+1)*m])
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("batch %d head %d: %v, want %v", b, h, got, want)
				}
			}
		}
	}
}

func TestAttentionRefuses(t *testing.T) {
	b := New(1)
	for _, s := range []AttentionShape{
		{Batch: -1, Heads: 1, HeadsKV: 1, SeqQ: 1, SeqKV: 1, HeadDim: 4},
		{Batch: 1, Heads: 3, HeadsKV: 2, SeqQ: 1, SeqKV: 1, HeadDim: 4},
		{Batch: 1, Heads: 2, HeadsKV: 0, SeqQ: 1, SeqKV: 1, HeadDim: 4},
		{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 1, SeqKV: 1, HeadDim: 0},
		{Batch: 1 << 20, Heads: 1 << 20, HeadsKV: 1, SeqQ: 1 << 20, SeqKV: 1, HeadDim: 128},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: valid", s)
		}
	}
	s := AttentionShape{Batch: 1, Heads: 1, HeadsKV: 1, SeqQ: 2, SeqKV: 2, HeadDim: 2}
	if err := b.AttentionRef(s, make([]float32, 3), make([]float32, 4), make([]float32, 4), make([]float32, 4)); err == nil {
		t.Error("short q accepted")
	}
	if err := b.Attention("bf16", s, make([]float32, 4), make([]float32, 4), make([]float32, 4), make([]float32, 4)); err == nil {
		t.Error("dtype bf16 accepted")
	}
}
