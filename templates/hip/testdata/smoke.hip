// Uses every facility of the portability header in device code, so that the
// compile check (hip_test.go, through .ci/hipcc-check) covers each of them
// on every target, wave32 and wave64. The test prepends
//   #define FORGE_TARGET_WAVE_SIZE <n>
//   #include "../forge_portability.h"
// It is compiled, never run.

static_assert(FORGE_ABI_VERSION == 2, "ABI version");
static_assert(FORGE_ERR_INVALID == 1 && FORGE_OK == 0, "result codes");
static_assert(FORGE_WAVE_SIZE == 32 || FORGE_WAVE_SIZE == 64, "wave size");

#define SMOKE_THREADS 256

FORGE_DEVICE float smoke_scalars(uint32_t i) {
	float v = forge_half_to_f32((forge_half)i) + forge_bf16_to_f32((forge_bfloat16)(i >> 3)) +
	          forge_e8m0_to_f32((forge_e8m0)i) * forge_e8m0_half_scale((forge_e8m0)(i >> 8));
	return forge_f32_from_bits(forge_f32_bits(v) ^ (uint32_t)forge_f32_to_half(v));
}

FORGE_GLOBAL void FORGE_LAUNCH_BOUNDS(SMOKE_THREADS)
smoke_kernel(const float* __restrict__ in, float* __restrict__ out, uint64_t* __restrict__ masks, int32_t* __restrict__ ints) {
	FORGE_SHARED float partial[SMOKE_THREADS / FORGE_WAVE_SIZE];
	const uint32_t t = forge_thread_idx();
	const uint32_t i = forge_block_idx() * forge_block_dim() + t;
	float v = in[i] + smoke_scalars(i);
	v = forge_wave_sum(v);
	v += forge_shfl_down(v, 1u);
	v += forge_shfl_xor(v, 1, FORGE_WAVE_SIZE / 2);
	const int32_t n = forge_shfl_xor((int32_t)i, 2) + forge_shfl_down((int32_t)i, 3u);
	const uint32_t u = forge_shfl_xor(i, 4) ^ forge_shfl_down(i, 5u, 16);
	const forge_lanemask_t m = forge_ballot(v > 0.0f);
	const uint32_t lane = forge_lane_id();
	if (lane == 0) {
		partial[t / FORGE_WAVE_SIZE] = v;
		masks[i / FORGE_WAVE_SIZE] = m;
	}
	forge_syncthreads();
	if (t == 0) {
		float s = 0.0f;
		for (int w = 0; w < SMOKE_THREADS / FORGE_WAVE_SIZE; w++) {
			s += partial[w];
		}
		out[forge_block_idx()] = s;
	}
	// The integer-form intrinsics: word loads of every alignment, the
	// 16-entry table lookup and the 4-way dot product (byte permutes and an
	// instruction on each AMD target; see the header).
	const unsigned char* bytes = (const unsigned char*)in + 4 * i;
	const uint32_t codes = forge_lut16(0x03020100u, 0x0c080604u, 0xfdfeff00u, 0xf4f8fafcu, forge_word32_a4(bytes));
	const int32_t dot = forge_dot4(codes, forge_word32_a2(bytes + 2) ^ forge_word32_a1(bytes + 1),
		(int32_t)forge_word16_a2(bytes) + (int32_t)forge_word16_a1(bytes + 1));
	forge_store_stream(&ints[i], n + (int32_t)u + (int32_t)forge_grid_dim() + dot);
}

FORGE_EXPORT int smoke_launch(const float* in, float* out, uint64_t* masks, int32_t* ints, uint32_t blocks, forge_stream_t stream) {
	FORGE_LAUNCH(smoke_kernel, dim3(blocks), dim3(SMOKE_THREADS), 0, stream, in, out, masks, ints);
	return forge_last_error();
}
