package formats

import "testing"

// TestScalesK4RoundTrip: scaleK4/minK4 (the Dequant side of ggml's
// get_scale_min_k4) invert packScalesK4 for every 6-bit scale and min in
// every sub-block position.
func TestScalesK4RoundTrip(t *testing.T) {
	for v := range 64 {
		var ls, lm [8]uint8
		for j := range 8 {
			ls[j] = uint8((v + 7*j) & 63)
			lm[j] = uint8((v*5 + 11*j + 3) & 63)
		}
		var s [12]uint8
		packScalesK4(&s, &ls, &lm)
		for j := range int32(8) {
			k := j & 3
			if sc := scaleK4(j, s[k], s[k+8]); sc != ls[j] {
				t.Fatalf("scale %d: packed %d, unpacked %d (scales %x)", j, ls[j], sc, s)
			}
			if m := minK4(j, s[k+4], s[k+8]); m != lm[j] {
				t.Fatalf("min %d: packed %d, unpacked %d (scales %x)", j, lm[j], m, s)
			}
		}
	}
}
