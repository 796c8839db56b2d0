// "raxc.conv2d_nchw_f32"(x, w, stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
// dilation_h, dilation_w, groups, out): R.nn.conv2d in float32 with NCHW data, an OIHW kernel
// and an NCHW result, the destination-passing packed function legalization emits
// (backend/legalize/conv.cpp). A direct convolution: no column matrix (im2col moved KH·KW times
// the image's data per call and ran at 30–45 % of peak). Two kernels: the channel-vectorised
// one (AVX-512) wherever it takes the shape, the position-vectorised one for the rest and on
// every CPU (its portable tiles).
//
// The channel-vectorised kernel (cplan … run_cgroup). Register tile: 64 output channels (4
// vectors) × up to 7 consecutive positions of one output row; a reduction step (channel c, tap)
// loads 4 vectors of weights and broadcasts the tile's input pixels from the NCHW image where
// it lies (no copy; stride 2 reads every other pixel), 4 FMAs each. Vectorising over output
// channels is what lets it skip the taps that read padding, as oneDNN does, which the
// position-vectorised tiles cannot (a vector of 16 positions is never all padding): per tile a
// row of taps in the padding is skipped whole and, per tap column, the tile's first or last
// position; a shape needing more (5×5 with padding 2, a column stride above 2, output channels
// not a multiple of 64 per group) takes the other kernel. That is 18 % of the work of 512×7² 3×3
// with padding 1 and 5 % of 128×28² 3×3 stride 2. A row is split into as few tiles as 7
// positions allow, of sizes differing by at most one (a 1×1's image is one row; 4 positions
// ran at about 80 % of the peak, 3 at 65 %). 4 × 6 accumulators, the weights and the pixel fit
// the 32 registers (97 % of the peak alone); 4 × 7 did not and GCC spilled one on every step
// (90 %), so tiles of 7 are asm (ctile7, 97–100 %; 1–2 % faster than tiles of 6 and 5 on
// 64×56² 3×3 and 256×14² 1×1). The tile's sums are transposed in registers to rows of positions and
// stored through masks into the NCHW output (copying them out one float at a time cost 10 %
// of 256×14² 1×1). The reduction runs in blocks of about 256 steps, each summed in registers
// and added to the sums of the blocks before in a buffer (one float32 sum over all of it
// strayed past the ops suite's tolerance).
//
// Its weights are packed per block of a panel: 64 rows of the OIHW tensor read
// along the reduction, transposed 16 × 16 in registers (128-bit broadcast loads blended, then
// a transpose within lanes: 15 ns per 16 × 16 in a microbenchmark, 41 for 64 shuffles) into
// [tap][channel][64] (each tap's weights one run; on images of under 128 positions
// [channel][tap][64], stored in order, 4 % faster for 512×7²). A thread keeps a panel packed whole
// when it fits in 512 KiB (its other units of the panel reuse it), else one block at a time: packed
// whole, 512×7²'s panels (1.2 MiB each) missed the caches on every store, the packing 0.45 ms
// of 1.5. The next block's weights are prefetched while the tiles of the block compute. The packing
// costs about 17 % of 512×7² 3×3 (2.4 M floats through L2), the one layer where few positions
// share each weight. So weights are packed whole once for all of a call's images, and a sealed
// weight tensor (runtime/tensor.h: a parameter `raxc run` was given, which nothing writes) keeps
// its packing for every later call (packed_weights). Never a cache keyed by the tensor's address:
// it could serve stale panels once that memory is reused. Against the position-vectorised kernel
// (test/bench/perf, one run each, 1 and 2 threads): 64×56² 3×3 5 and 4 % faster, 128×28² 3×3 stride
// 2 24 and 42 %, 256×14² 1×1 6 and 20 %, 512×7² 3×3 2 and 11 % (interleaved calls on one thread:
// 3–9, 20–30, 5–7 and 3–13 %). oneDNN stays ahead (raxc at 0.79–0.93 of its speed in that run): its
// weights are reordered outside its timing and its output stays blocked.
//
// The position-vectorised kernel. Register tile: 8 output channels × up to 48 consecutive
// output positions (3 zmm per channel, 24 accumulators); each reduction step (c, kh, kw) loads
// 3 vectors of input pixels and broadcasts 8 weights, 24 FMAs. The input is read where it lies:
// positions are numbered over rows of the source's width (q = oh·PW + ow, the last KW−1
// columns of each row computed and thrown away), so the pixels a tap reads for a run of
// positions are one contiguous run of the source, at an offset per step (c, kh, kw) from a
// table. The source is the image itself when there is no padding and the stride is 1;
// otherwise a copy, zero-padded and, for stride s, split into its s×s phases (rows and columns
// ≡ a, b mod s) so every tap reads stride 1. The copy is per thread and kept (first touch of a
// page costs 10–22 µs on this VM). The tile's outputs are stored row by row through masks (a
// vector of 16 positions can cross rows), straight into the NCHW result. Small outputs (7×7)
// read a dense source instead, one copy of the image per kernel column with rows of the
// output's width, so no position is thrown away, and the 49th position is computed as dot
// products beside the 48 in vectors. The reduction runs in blocks as above. Its weights:
// panels of 8 output channels read in place, 8 rows of the OIHW tensor each streamed along the
// reduction, prefetched ahead (packing them step-major per call measured slower for these
// tiles: the strided copy cost more than the contiguous broadcasts saved).
//
// A 1×1 convolution with stride 1 and no padding is a plain product W · X; on the matmul kernel
// (matmul.h, Conv2dPath::kGemm) it measured the same as the direct tiles reading the image in
// place; kept to compare. The portable tiles (no AVX-512, or RAXC_MATMUL_GENERIC, as the matmul
// kernel) compute the position-vectorised tiles in plain C++.
//
// Threads: the runtime's pool above 8M multiply-adds per image and group (~100 µs). The work
// is split into units, a band of them per thread, claimed from the band's counter; a thread
// done with its band takes over the others' remaining units, so a descheduled thread's share
// is taken over (run_bands, run_cbands). Position-vectorised units are runs of a band's tiles
// of one panel, each thread copying into a buffer of its own the source rows its band reads;
// channel-vectorised units are runs of one panel's tiles (at most 16, and about four units
// per thread or more), ordered by panel so that a thread packs the panels of its band.
#include "backend/runtime/conv2d.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RAXC_CONV_X86 1
#endif

#include "backend/runtime/error.h"
#include "backend/runtime/matmul.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/storage.h"
#include "backend/runtime/tensor.h"

namespace raxc::runtime {
namespace {

// Tiles: 8 output channels × 3 vectors of positions; 6 × 4 on images of 49 to 64 positions,
// which covers them in one tile so each weight is read once; 6 × 3 when a last lone position
// (16k + 1 positions: 7×7) is computed beside them as dot products (6 more accumulators).
constexpr int64_t kMR = 8, kMaxNV = 3;
constexpr int64_t kSmallMR = 6, kSmallNV = 4;
constexpr int64_t kParallelMacs = int64_t(8) << 20;
// Reduction steps summed in registers before they are added to the output (see run_tiles).
constexpr int64_t kBlockSteps = 256;

// What follows an output element once its sum is complete, in this order: the bias of its
// output channel added, the residual's element at the same index added, ReLU (a NaN stays NaN,
// as the generated max does). backend/fuse/epilogue.cpp folds the kernels after a convolution
// into these ("raxc.conv2d_nchw_bias_residual_relu_f32"); each unit of work applies them to
// the outputs it has just completed, while they are in cache, instead of a pass of its own
// over the whole result per kernel (ResNet-18 at batch 1: 21.3 ms on one thread with those
// passes, 19.9 without).
struct Epilogue {
  const float* bias = nullptr;      // one float per output channel, from the first
  const float* residual = nullptr;  // laid out as the output
  bool relu = false;
  bool any() const { return bias || residual || relu; }
  // The same from output channel `channel` of the image whose outputs start `image_floats`
  // into the result (planes of `plane` floats).
  Epilogue at(int64_t image_floats, int64_t channel, int64_t plane) const {
    Epilogue e = *this;
    if (e.bias) e.bias += channel;
    if (e.residual) e.residual += image_floats + channel * plane;
    return e;
  }
};

void finish_generic(const Epilogue& e, float* out, const float* residual, float bias, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = out[i];
    if (e.bias) v += bias;
    if (residual) v += residual[i];
    if (e.relu) v = std::max(v, 0.0f);  // NaN < 0 is false: a NaN stays
    out[i] = v;
  }
}

#ifdef RAXC_CONV_X86
__attribute__((target("avx512f"))) void finish_avx512(const Epilogue& e, float* out,
                                                      const float* residual, float bias,
                                                      int64_t n) {
  __m512 b = _mm512_set1_ps(bias), zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    __m512 v = _mm512_maskz_loadu_ps(m, out + i);
    if (e.bias) v = _mm512_add_ps(v, b);
    if (residual) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, residual + i));
    if (e.relu) v = _mm512_max_ps(zero, v);  // the second operand when either is NaN
    _mm512_mask_storeu_ps(out + i, m, v);
  }
}
#endif

// The epilogue of output channels [c0, c1) (counted from e's and out's first) at the flat
// positions [q0, q1) of their planes of `plane` floats.
void finish(const Epilogue& e, bool generic, float* out, int64_t plane, int64_t c0, int64_t c1,
            int64_t q0, int64_t q1) {
  if (!e.any() || q0 >= q1) return;
  for (int64_t c = c0; c < c1; ++c) {
    float* o = out + c * plane + q0;
    const float* r = e.residual ? e.residual + c * plane + q0 : nullptr;
    float b = e.bias ? e.bias[c] : 0.0f;
#ifdef RAXC_CONV_X86
    if (!generic) {
      finish_avx512(e, o, r, b, q1 - q0);
      continue;
    }
#endif
    finish_generic(e, o, r, b, q1 - q0);
  }
  (void)generic;
}

// The number of vectors of positions, where a last lone position is a tail.
int64_t vectors_of(int64_t positions, bool contiguous) {
  bool tail = contiguous && positions > 16 && positions % 16 == 1;
  return (positions - tail + 15) / 16;
}

// One group's convolution of one image, and the layout of its source.
struct Plan {
  int64_t channels, outputs;  // of the group
  int64_t height, width, kh, kw, oh, ow;
  int64_t sh, sw, pt, pl, dh, dw;
  int64_t ph, pw;     // rows and columns of a phase (of the padded image when the stride is 1)
  int64_t plane;      // floats per channel of the source (its phases one after the other)
  int64_t positions;  // output positions q = oh·pw + ow up to the last output: (oh−1)·pw + ow
  int64_t tail;       // 1: the last position is computed by dot products, not in a vector
  int64_t reduction;  // channels · kh · kw
  int64_t mr, nv;     // output channels per panel, vectors per tile
  int64_t panels, tiles;
  int64_t block;  // reduction steps per block: whole input channels, about kBlockSteps
  bool in_place;  // the source is the image itself
  bool dense;     // the source's rows are the output's (pw == ow): a copy per kernel column
  bool generic;   // portable code only
  // The phases some tap reads, as rows a and columns b of the phase (a, b) (a 1×1 kernel with
  // stride 2 reads one phase of four; the others are not copied).
  std::vector<bool> phase_rows, phase_columns;
  // A dense source of an image of at most 64 floats per channel: for each float of a channel's
  // copies (rounded up to vectors), the float of the channel it holds, or −1 for padding
  // (copy_dense_small_avx512).
  std::vector<int32_t> dense_index;
};

// One tile's operands.
struct Tile {
  const float* w;                 // the panel's first row of weights
  int64_t ldw;                    // their row stride (the reduction's length)
  const float* x;                 // the source's first channel, at the tile's first position
  const int64_t* off;             // per reduction step: where its pixels start, from x
  int64_t k;                      // reduction steps
  int64_t q0, positions, pw, ow;  // positions: those computed in vectors
  const float* tail;  // when set, the pixels each step multiplies for position `positions`
  float* out;         // the panel's first output channel
  int64_t out_plane;  // oh · ow
  int64_t mr;         // output channels of the panel (≤ 8)
  // The reduction runs in blocks (run_tiles): the sums of the blocks before this one are kept
  // in `partial` (aligned, MR rows of 16·NV floats, then MR for the tail), and only the last
  // block's are stored to the output.
  float* partial;
  bool first, last;
};

// The floats of a tile's partial sums: the largest tile's, then the tail's.
constexpr int64_t kPartialFloats = 16 * kMR * kMaxNV + kMR;
static_assert(kSmallMR * kSmallNV <= kMR * kMaxNV);

// The lanes of a vector at position qv that are outputs, one output row at a time: lane l goes
// to out[offset + l] of each output channel. At most 17 (16 lanes over rows of width 1).
struct Segment {
  int64_t offset;
  uint32_t mask;
};

int row_segments(const Tile& t, int64_t qv, Segment* seg) {
  int n = 0;
  int64_t end = std::min(qv + 16, t.positions);
  if (t.pw == t.ow) {  // the positions are the output's
    seg[n++] = Segment{qv, (1u << (end - qv)) - 1};
    return n;
  }
  for (int64_t row = qv / t.pw; row * t.pw < end; ++row) {
    int64_t lo = std::max(qv, row * t.pw) - qv;
    int64_t hi = std::min(end, row * t.pw + t.ow) - qv;
    if (lo < hi) seg[n++] = Segment{row * (t.ow - t.pw) + qv, ((1u << hi) - 1) & ~((1u << lo) - 1)};
  }
  return n;
}

// ---------------------------------------------------------------------------- portable tiles

template <int MR, int NV>
void tile_generic(const Tile& t) {
  constexpr int64_t kWidth = 16 * NV;
  float acc[MR][kWidth] = {};
  int64_t width = std::min(kWidth, t.positions - t.q0);
  for (int64_t p = 0; p < t.k; ++p) {
    const float* xp = t.x + t.off[p];
    float pixels[kWidth] = {};
    for (int64_t j = 0; j < width; ++j) pixels[j] = xp[j];
    for (int64_t r = 0; r < MR; ++r) {
      float a = t.w[std::min(r, t.mr - 1) * t.ldw + p];
      for (int64_t j = 0; j < kWidth; ++j) acc[r][j] += a * pixels[j];
    }
  }
  float* tail_sums = t.partial + MR * kWidth;
  for (int64_t r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < kWidth; ++j)
      acc[r][j] = t.first ? acc[r][j] : t.partial[r * kWidth + j] + acc[r][j];
    if (t.tail) {
      float sum = 0;
      for (int64_t p = 0; p < t.k; ++p) sum += t.w[std::min(r, t.mr - 1) * t.ldw + p] * t.tail[p];
      tail_sums[r] = t.first ? sum : tail_sums[r] + sum;
    }
  }
  if (!t.last) {
    for (int64_t r = 0; r < MR; ++r)
      for (int64_t j = 0; j < kWidth; ++j) t.partial[r * kWidth + j] = acc[r][j];
    return;
  }
  Segment seg[17];
  for (int v = 0; v < NV; ++v) {
    int n = row_segments(t, t.q0 + 16 * v, seg);
    for (int64_t r = 0; r < t.mr; ++r)
      for (int s = 0; s < n; ++s)
        for (int l = 0; l < 16; ++l)
          if (seg[s].mask >> l & 1) t.out[r * t.out_plane + seg[s].offset + l] = acc[r][16 * v + l];
  }
  if (t.tail)
    for (int64_t r = 0; r < t.mr; ++r) t.out[r * t.out_plane + t.positions] = tail_sums[r];
}

// ---------------------------------------------------------------------------- AVX-512 tiles
#ifdef RAXC_CONV_X86
// One reduction step of a tile: NV vectors of pixels times MR broadcast weights.
template <int MR, int NV, bool kMasked>
__attribute__((target("avx512f,fma"), always_inline)) inline void tile_step(
    __m512 (&acc)[MR][NV], const float* const (&rows)[MR], const float* xp, int64_t p,
    const __mmask16 (&load_mask)[NV]) {
  __m512 b[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    b[v] =
        kMasked ? _mm512_maskz_loadu_ps(load_mask[v], xp + 16 * v) : _mm512_loadu_ps(xp + 16 * v);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    __m512 a = _mm512_set1_ps(rows[r][p]);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
  }
}

// kMasked: the tile runs past the last position, so its pixels are loaded through masks (the
// source may end there). kTail: the tile also computes position t.positions as MR dot products
// of the weight rows with t.tail, 16 steps per FMA.
// The sum of a vector's 16 lanes, added in pairs as _mm512_reduce_add_ps does; written out
// because GCC 12 reports that intrinsic's internal undefined vector as uninitialized (-Werror).
__attribute__((target("avx512f"), always_inline)) inline float lane_sum(__m512 v) {
  alignas(64) float lane[16];
  _mm512_store_ps(lane, v);
  for (int width = 8; width > 0; width /= 2)
    for (int i = 0; i < width; ++i) lane[i] += lane[i + width];
  return lane[0];
}

template <int MR, int NV, bool kMasked, bool kTail>
__attribute__((target("avx512f,fma"))) void tile_avx512(const Tile& t) {
  // Every loop over channels and vectors is unrolled: at -O2 GCC keeps the arrays of a loop it
  // does not unroll in memory, and the accumulators went to the stack on every step.
  __m512 acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  __mmask16 load_mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    int64_t left = t.positions - t.q0 - 16 * v;
    load_mask[v] = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? 0 : __mmask16((1u << left) - 1);
  }
  // A panel of fewer than MR channels repeats its last row (computed, not stored).
  const float* rows[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) rows[r] = t.w + std::min<int64_t>(r, t.mr - 1) * t.ldw;
  __m512 dot[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) dot[r] = _mm512_setzero_ps();
  const float* x = t.x;
  const int64_t* off = t.off;
  int64_t p = 0;
  // Blocks of 16 steps, one cache line of each weight row: the rows' lines 4 blocks ahead are
  // prefetched (on a small image a panel's weights come from memory, once).
  for (; p + 16 <= t.k; p += 16) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
      _mm_prefetch(reinterpret_cast<const char*>(rows[r] + p + 64), _MM_HINT_T0);
    if constexpr (kTail) {
      __m512 pixels = _mm512_loadu_ps(t.tail + p);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r)
        dot[r] = _mm512_fmadd_ps(_mm512_loadu_ps(rows[r] + p), pixels, dot[r]);
    }
#pragma GCC unroll 4
    for (int64_t q = p; q < p + 16; ++q)
      tile_step<MR, NV, kMasked>(acc, rows, x + off[q], q, load_mask);
  }
  if constexpr (kTail) {
    __mmask16 m = __mmask16((1u << (t.k - p)) - 1);
    __m512 pixels = _mm512_maskz_loadu_ps(m, t.tail + p);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
      dot[r] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, rows[r] + p), pixels, dot[r]);
  }
  for (; p < t.k; ++p) tile_step<MR, NV, kMasked>(acc, rows, x + off[p], p, load_mask);
  // The blocks before this one are added here, in L1; the output is written once, after the
  // last block: adding each block to it through the row segments' masked loads and stores cost
  // 7 % of a 64×56² convolution (3 blocks of 198 steps).
  float* partial = t.partial;
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float* at = partial + (r * NV + v) * 16;
      __m512 sum = t.first ? acc[r][v] : _mm512_add_ps(_mm512_load_ps(at), acc[r][v]);
      _mm512_store_ps(at, sum);
    }
  float* tail_sums = partial + MR * NV * 16;
  if constexpr (kTail) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      float sum = lane_sum(dot[r]);
      tail_sums[r] = t.first ? sum : tail_sums[r] + sum;
    }
  }
  if (!t.last) return;
  // Through the buffer: indexing the accumulators by the run-time segments would keep them in
  // memory for the whole loop (GCC spilled all 24 to the stack on every step).
  Segment seg[17];
  for (int v = 0; v < NV; ++v) {
    int n = row_segments(t, t.q0 + 16 * v, seg);
    for (int s = 0; s < n; ++s) {
      // offset may be below the plane's start by up to 15: only the masked lanes are written.
      float* out = t.out + seg[s].offset;
      __mmask16 m = __mmask16(seg[s].mask);
      for (int64_t r = 0; r < t.mr; ++r)
        _mm512_mask_storeu_ps(out + r * t.out_plane, m,
                              _mm512_load_ps(partial + (r * NV + v) * 16));
    }
  }
  if constexpr (kTail)
    for (int64_t r = 0; r < t.mr; ++r) t.out[r * t.out_plane + t.positions] = tail_sums[r];
}
#endif

using TileFunction = void (*)(const Tile&);

// The tile function of a panel of mr (8 or 6) channels and nv vectors (1–3 of 8, 4 of 6).
TileFunction pick_tile(bool generic, int64_t mr, int64_t nv, bool masked, bool tail) {
#ifdef RAXC_CONV_X86
  if (!generic) {
#define RAXC_TILE(MR, NV)                                                                         \
  if (mr == MR && nv == NV) {                                                                     \
    if (tail) return masked ? tile_avx512<MR, NV, true, true> : tile_avx512<MR, NV, false, true>; \
    return masked ? tile_avx512<MR, NV, true, false> : tile_avx512<MR, NV, false, false>;         \
  }
    RAXC_TILE(8, 1)
    RAXC_TILE(8, 2)
    RAXC_TILE(8, 3)
    RAXC_TILE(6, 1)
    RAXC_TILE(6, 2)
    RAXC_TILE(6, 3)
    RAXC_TILE(6, 4)
#undef RAXC_TILE
  }
#endif
  (void)masked;
  (void)tail;
  if (mr == kSmallMR)
    return nv == 1   ? tile_generic<kSmallMR, 1>
           : nv == 2 ? tile_generic<kSmallMR, 2>
           : nv == 3 ? tile_generic<kSmallMR, 3>
                     : tile_generic<kSmallMR, 4>;
  return nv == 1 ? tile_generic<kMR, 1> : nv == 2 ? tile_generic<kMR, 2> : tile_generic<kMR, 3>;
}

// ---------------------------------------------------------------------------- preparation

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Of `count` columns j of the padded image, j·sw + shift, the span [first, end) whose input
// column j·sw + shift − pl is inside the image; the others are padding.
struct Span {
  int64_t first, end, count;
};

Span image_columns(const Plan& p, int64_t shift, int64_t count) {
  int64_t first = p.pl - shift <= 0 ? 0 : ceil_div(p.pl - shift, p.sw);
  int64_t end = std::clamp<int64_t>(ceil_div(p.width + p.pl - shift, p.sw), first, count);
  return Span{std::min(first, end), end, count};
}

// Columns shift, shift + sw, … of one row of the padded image (in: the row's first float) into
// dst, span.count of them: zeros, the row's floats, zeros.
void copy_row(const Plan& p, const float* in, int64_t shift, Span span, float* dst) {
  in += shift - p.pl;  // in[j·sw]: column j
  std::fill(dst, dst + span.first, 0.f);
  if (p.sw == 1)
    std::memcpy(dst + span.first, in + span.first,
                static_cast<size_t>(span.end - span.first) * sizeof(float));
  else
    for (int64_t j = span.first; j < span.end; ++j) dst[j] = in[j * p.sw];
  std::fill(dst + span.end, dst + span.count, 0.f);
}

// One row of the image into its two column phases, for stride 2: dst[b][j] = padded[2j + b] for
// j < pw, where padded[x] = in[x − pl] inside the row's `width` floats and zero outside; dst[b]
// null for a phase no tap reads. 16 outputs of each phase per step: the padded row's floats
// loaded through masks (lanes outside the row neither read nor faulted), the phases separated
// by one permutation each. Each phase's rows copied apart, with scalar edges, cost a third
// more (94 against 58 thousand cycles for 128×28² stride 2, 13 % of the convolution); for
// stride 1, these masked loads took twice as long as memcpy and scalar edges (copy_row).
#ifdef RAXC_CONV_X86
// padded[x0 .. x0 + 16) of a row: in[x − pl] inside its `width` floats, zero outside.
__attribute__((target("avx512f"), always_inline)) inline __m512 load_padded(const float* in,
                                                                            int64_t width,
                                                                            int64_t pl,
                                                                            int64_t x0) {
  int64_t lo = std::clamp<int64_t>(pl - x0, 0, 16),
          hi = std::clamp<int64_t>(pl - x0 + width, 0, 16);
  __mmask16 inside = __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1));
  return inside ? _mm512_maskz_loadu_ps(inside, in + (x0 - pl)) : _mm512_setzero_ps();
}

__attribute__((target("avx512f"))) void copy_row_avx512(const float* in, int64_t width, int64_t pl,
                                                        int64_t pw, float* const dst[2]) {
  const __m512i evens =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
  for (int64_t j = 0; j < pw; j += 16) {
    __mmask16 out = pw - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (pw - j)) - 1);
    __m512 lo = load_padded(in, width, pl, 2 * j), hi = load_padded(in, width, pl, 2 * j + 16);
    if (dst[0]) _mm512_mask_storeu_ps(dst[0] + j, out, _mm512_permutex2var_ps(lo, evens, hi));
    if (dst[1]) _mm512_mask_storeu_ps(dst[1] + j, out, _mm512_permutex2var_ps(lo, odds, hi));
  }
}
#endif

// Plan::dense_index: copy j, row phase a, row i, column o holds padded row i·sh + a, column
// o·sw + j·dw.
std::vector<int32_t> dense_index(const Plan& p) {
  std::vector<int32_t> index(static_cast<size_t>((p.plane + 15) / 16 * 16), -1);
  for (int64_t j = 0, at = 0; j < p.kw; ++j)
    for (int64_t a = 0; a < p.sh; ++a)
      for (int64_t i = 0; i < p.ph; ++i)
        for (int64_t o = 0; o < p.ow; ++o, ++at) {
          int64_t y = i * p.sh + a - p.pt, x = o * p.sw + j * p.dw - p.pl;
          if (y >= 0 && y < p.height && x >= 0 && x < p.width)
            index[static_cast<size_t>(at)] = int32_t(y * p.width + x);
        }
  return index;
}

#ifdef RAXC_CONV_X86
// copy_dense for an image of at most 64 floats a channel: the channel in four registers, each
// vector of its copies picked from them by Plan::dense_index (two permutations and a blend).
// Row by row (copy_row) it took 134 thousand cycles for 512×7² 3×3, this way 18: the
// convolution 6 % faster on one thread, 8 % on two (each thread copies the whole image when a
// single tile covers it).
__attribute__((target("avx512f"))) void copy_dense_small_avx512(const Plan& p, const float* image,
                                                                float* source) {
  int64_t size = p.height * p.width, vectors = (p.plane + 15) / 16;
  const int32_t* index = p.dense_index.data();
  const __m512i high = _mm512_set1_epi32(32);
  for (int64_t c = 0; c < p.channels; ++c) {
    const float* channel = image + c * size;
    __m512 x[4];
    for (int k = 0; k < 4; ++k) {
      int64_t left = std::clamp<int64_t>(size - 16 * k, 0, 16);
      x[k] = _mm512_maskz_loadu_ps(__mmask16((1u << left) - 1), channel + 16 * k);
    }
    float* dst = source + c * p.plane;
    for (int64_t v = 0; v < vectors; ++v) {
      __m512i at = _mm512_loadu_si512(index + 16 * v);
      __m512 lo = _mm512_permutex2var_ps(x[0], at, x[1]),
             hi = _mm512_permutex2var_ps(x[2], at, x[3]);
      __m512 picked = _mm512_mask_blend_ps(_mm512_test_epi32_mask(at, high), lo, hi);
      __mmask16 inside = _mm512_cmpge_epi32_mask(at, _mm512_setzero_si512());
      int64_t left = std::min<int64_t>(16, p.plane - 16 * v);
      __mmask16 out = left == 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      _mm512_mask_storeu_ps(dst + 16 * v, out, _mm512_maskz_mov_ps(inside, picked));
    }
  }
}
#endif

// Rows [r0, r1) of each copy of every channel of the image into a dense source: for each kernel
// column j and row phase a, the rows a, a + sh, … of the padded image at the output's columns,
// shifted by j (column ow holds padded column ow·sw + j·dw), so the taps of column j read
// positions oh·ow + ow.
void copy_dense(const Plan& p, const float* image, int64_t r0, int64_t r1, float* source) {
#ifdef RAXC_CONV_X86
  if (!p.dense_index.empty() && r0 == 0 && r1 == p.ph)
    return copy_dense_small_avx512(p, image, source);
#endif
  std::vector<Span> spans(static_cast<size_t>(p.kw));
  for (int64_t j = 0; j < p.kw; ++j)
    spans[static_cast<size_t>(j)] = image_columns(p, j * p.dw, p.ow);
  for (int64_t c = 0; c < p.channels; ++c) {
    const float* channel = image + c * p.height * p.width;
    for (int64_t j = 0; j < p.kw; ++j)
      for (int64_t a = 0; a < p.sh; ++a) {
        if (!p.phase_rows[static_cast<size_t>(a)]) continue;
        float* dst = source + c * p.plane + (j * p.sh + a) * p.ph * p.ow + r0 * p.ow;
        for (int64_t i = r0; i < r1; ++i, dst += p.ow) {
          int64_t y = i * p.sh + a - p.pt;
          if (y < 0 || y >= p.height)
            std::memset(dst, 0, static_cast<size_t>(p.ow) * sizeof(float));
          else
            copy_row(p, channel + y * p.width, j * p.dw, spans[static_cast<size_t>(j)], dst);
        }
      }
  }
}

// Rows [r0, r1) of each phase of every channel of the image (H × W planes) into the source:
// each channel zero-padded and split into its sh × sw phases, phase (a, b) holding padded rows
// a, a + sh, … and columns b, b + sw, …
void copy_source(const Plan& p, const float* image, int64_t r0, int64_t r1, float* source) {
  if (p.dense) return copy_dense(p, image, r0, r1, source);
  std::vector<Span> spans(static_cast<size_t>(p.sw));
  for (int64_t b = 0; b < p.sw; ++b) spans[static_cast<size_t>(b)] = image_columns(p, b, p.pw);
  auto reads = [&](int64_t b) { return p.phase_columns[static_cast<size_t>(b)]; };
  int64_t phase_size = p.ph * p.pw;
  for (int64_t c = 0; c < p.channels; ++c) {
    const float* channel = image + c * p.height * p.width;
    for (int64_t a = 0; a < p.sh; ++a) {
      if (!p.phase_rows[static_cast<size_t>(a)]) continue;
      for (int64_t i = r0; i < r1; ++i) {
        // Row i of phase (a, 0); of phase (a, b) b phases further.
        float* row = source + c * p.plane + a * p.sw * phase_size + i * p.pw;
        int64_t y = i * p.sh + a - p.pt;
        if (y < 0 || y >= p.height) {
          for (int64_t b = 0; b < p.sw; ++b)
            if (reads(b))
              std::memset(row + b * phase_size, 0, static_cast<size_t>(p.pw) * sizeof(float));
          continue;
        }
        const float* in = channel + y * p.width;
#ifdef RAXC_CONV_X86
        if (!p.generic && p.sw == 2) {
          float* const dst[2] = {reads(0) ? row : nullptr, reads(1) ? row + phase_size : nullptr};
          copy_row_avx512(in, p.width, p.pl, p.pw, dst);
          continue;
        }
#endif
        for (int64_t b = 0; b < p.sw; ++b)
          if (reads(b)) copy_row(p, in, b, spans[static_cast<size_t>(b)], row + b * phase_size);
      }
    }
  }
}

// The calling thread's buffers, grown on demand and kept for the thread's life so repeated
// calls touch no fresh pages: the position-vectorised kernel's source copy, and the
// channel-vectorised kernel's packed weights and partial sums.
enum class Buffer { kSource, kChannels };
float* thread_buffer(Buffer which, int64_t floats) {
  struct Kept {
    float* data = nullptr;
    int64_t size = 0;
    ~Kept() { std::free(data); }
  };
  thread_local Kept kept[2];
  Kept& buf = kept[static_cast<int>(which)];
  if (buf.size < floats) {
    std::free(buf.data);
    buf.data = nullptr;
    buf.size = 0;
    size_t bytes = (static_cast<size_t>(floats) * 4 + 4095) & ~size_t(4095);
    buf.data = static_cast<float*>(std::aligned_alloc(4096, bytes));
    if (!buf.data) throw_error("RX5026", {"(convolution buffer)", "float32"});
    buf.size = floats;
  }
  return buf.data;
}

// ---------------------------------------------------------------- one group of one image

// The pixel each step (c, i, j) multiplies for the last output (oh − 1, ow − 1), zero in the
// padding: the operand of the tail's dot products, read from the image.
void fill_tail(const Plan& p, const float* image, float* tail) {
  for (int64_t c = 0, s = 0; c < p.channels; ++c)
    for (int64_t i = 0; i < p.kh; ++i)
      for (int64_t j = 0; j < p.kw; ++j, ++s) {
        int64_t y = (p.oh - 1) * p.sh + i * p.dh - p.pt, x = (p.ow - 1) * p.sw + j * p.dw - p.pl;
        bool inside = y >= 0 && y < p.height && x >= 0 && x < p.width;
        tail[s] = inside ? image[(c * p.height + y) * p.width + x] : 0.f;
      }
}

struct GroupConv {
  const Plan* plan;
  const float* image;    // the group's first input channel
  const float* weights;  // the group's first output channel's weights
  const float* source;   // what the tiles read: the image itself when plan->in_place, else `copy`
  float* copy;  // the zero-padded, phase-split copy: the calling thread's (unused in place)
  float* tail;  // per step, the pixel it multiplies for the last position (plan->tail)
  const int64_t* offsets;
  float* out;  // the group's first output channel
  bool generic;
  Epilogue epi;  // from the group's first output channel
};

// The epilogue of a panel's outputs at positions q of tiles [t0, t1) (q = oh·pw + ow, the
// columns ow ≥ OW of a row computed and thrown away), now complete.
void finish_tiles(const GroupConv& g, int64_t panel, int64_t t0, int64_t t1) {
  const Plan& p = *g.plan;
  int64_t q0 = t0 * 16 * p.nv, q1 = t1 == p.tiles ? p.positions : t1 * 16 * p.nv;
  int64_t c0 = panel * p.mr, c1 = std::min(p.outputs, c0 + p.mr);
  for (int64_t row = q0 / p.pw; row * p.pw < q1 && row < p.oh; ++row) {
    int64_t first = std::max<int64_t>(q0 - row * p.pw, 0), end = std::min(q1 - row * p.pw, p.ow);
    finish(g.epi, g.generic, g.out, p.oh * p.ow, c0, c1, row * p.ow + first, row * p.ow + end);
  }
}

// Tiles [t0, t1) of panel `panel`.
void run_tiles(const GroupConv& g, int64_t panel, int64_t t0, int64_t t1) {
  const Plan& p = *g.plan;
  Tile t;
  t.k = p.reduction;
  t.off = g.offsets;
  t.pw = p.pw;
  t.ow = p.ow;
  t.out_plane = p.oh * p.ow;
  t.mr = std::min(p.mr, p.outputs - panel * p.mr);
  t.w = g.weights + panel * p.mr * p.reduction;
  t.ldw = p.reduction;
  t.out = g.out + panel * p.mr * t.out_plane;
  t.positions = p.positions - p.tail;
  alignas(64) float partial[kPartialFloats];
  t.partial = partial;
  const float* weights = t.w;
  for (int64_t tile = t0; tile < t1; ++tile) {
    t.q0 = tile * 16 * p.nv;
    t.x = g.source + t.q0;
    int64_t nv = std::min(p.nv, ceil_div(t.positions - t.q0, 16));
    bool masked = t.q0 + 16 * nv > t.positions;
    bool tail = p.tail && tile == p.tiles - 1;
    TileFunction run = pick_tile(g.generic, p.mr, nv, masked, tail);
    // The reduction in blocks, each summed in registers and added to the sums of the blocks
    // before (in L1): one float32 sum over all of C·KH·KW strayed further from PyTorch's than
    // the ops suite's tolerance allows (576 terms, as the matmul's 256 do not).
    for (int64_t s0 = 0; s0 < p.reduction; s0 += p.block) {
      t.k = std::min(p.block, p.reduction - s0);
      t.off = g.offsets + s0;
      t.w = weights + s0;
      t.tail = tail ? g.tail + s0 : nullptr;
      t.first = s0 == 0;
      t.last = s0 + t.k == p.reduction;
      run(t);
    }
  }
  finish_tiles(g, panel, t0, t1);
}

// Rows [r0, r1) of the source's phases (or dense copies): what tiles [t0, t1) read.
struct Rows {
  int64_t r0, r1;
};

Rows rows_read(const Plan& p, int64_t t0, int64_t t1) {
  int64_t vectors = p.positions - p.tail;
  int64_t q0 = t0 * 16 * p.nv, q1 = std::min(t1 * 16 * p.nv, vectors);
  // A step reads its positions shifted by up to this many rows and columns of the phase.
  int64_t down = p.dh * (p.kh - 1) / p.sh, right = p.dense ? 0 : p.dw * (p.kw - 1) / p.sw;
  return Rows{q0 / p.pw, std::min(p.ph, (q1 - 1 + right) / p.pw + down + 1)};
}

// The parallel form. The tiles are split into bands of positions, one per thread (fewer when
// there are fewer tiles); each thread copies the rows of the source its band reads into a
// buffer of its own, then takes its band's units (a panel × a run of the band's tiles) from
// the band's counter; its band done, it takes the other bands' remaining units, copying their
// rows first, so a descheduled thread's share is taken over. No thread ever waits for another.
// Why a copy per thread: with one copy shared by the threads (each copying some channels), a
// unit ran half as fast on two threads as on one, the copy's lines written by one core and
// read by the other at every call: 128×28² stride 2 took 0.351 ms on two threads, 0.388 on one.
struct Band {
  int64_t t0 = 0, t1 = 0;  // its tiles
  Rows rows{0, 0};
  int64_t chunk = 1, chunks = 1, units = 0;  // units: panels × runs of `chunk` tiles
  std::atomic<int64_t> next{0};
};

struct Job {
  const GroupConv* g = nullptr;
  std::unique_ptr<Band[]> bands;
  int64_t count = 0;
  int64_t copy_size = 0;  // floats of a thread's source buffer
};

// Band `home` first, then the others' remaining units. Fails (1) only when the thread's source
// buffer cannot be allocated: nothing may unwind through the pool.
int32_t run_bands(int64_t home, int64_t, void* closure) {
  Job& job = *static_cast<Job*>(closure);
  const Plan& p = *job.g->plan;
  GroupConv mine = *job.g;
  if (!p.in_place) {
    try {
      mine.copy = thread_buffer(Buffer::kSource, job.copy_size);
    } catch (...) {
      return 1;
    }
    mine.source = mine.copy;
  }
  for (int64_t i = 0; i < job.count; ++i) {
    Band& band = job.bands[static_cast<size_t>((home + i) % job.count)];
    bool copied = p.in_place;
    for (int64_t u; (u = band.next.fetch_add(1, std::memory_order_relaxed)) < band.units;) {
      if (!copied) copy_source(p, mine.image, band.rows.r0, band.rows.r1, mine.copy);
      copied = true;
      int64_t panel = u / band.chunks, t0 = band.t0 + u % band.chunks * band.chunk;
      run_tiles(mine, panel, t0, std::min(band.t1, t0 + band.chunk));
    }
  }
  return 0;
}

void run_group(const GroupConv& g, int threads) {
  const Plan& p = *g.plan;
  int64_t macs = p.outputs * p.oh * p.ow * p.reduction;
  if (threads > 1 && macs >= kParallelMacs) {
    Job job;
    job.g = &g;
    job.count = std::min<int64_t>(threads, p.tiles);
    job.copy_size = p.channels * p.plane;
    job.bands.reset(new Band[static_cast<size_t>(job.count)]);
    for (int64_t b = 0; b < job.count; ++b) {
      Band& band = job.bands[static_cast<size_t>(b)];
      band.t0 = p.tiles * b / job.count;
      band.t1 = p.tiles * (b + 1) / job.count;
      band.rows = rows_read(p, band.t0, band.t1);
      // About 8 units per band, each a run of tiles of one panel.
      band.chunks = std::min(band.t1 - band.t0, ceil_div(8, p.panels));
      band.chunk = ceil_div(band.t1 - band.t0, band.chunks);
      band.chunks = ceil_div(band.t1 - band.t0, band.chunk);
      band.units = p.panels * band.chunks;
    }
    if (raxc_parallel_for(0, threads, run_bands, &job) != 0)
      throw_error("RX5026", {"(convolution buffer)", "float32"});
    return;
  }
  if (!p.in_place) copy_source(p, g.image, 0, p.ph, g.copy);
  for (int64_t panel = 0; panel < p.panels; ++panel) run_tiles(g, panel, 0, p.tiles);
}

// ---------------------------------------------------------------- the channel-vectorised kernel
#ifdef RAXC_CONV_X86
constexpr int64_t kCPanel = 64;  // output channels per panel: 4 vectors of 16
constexpr int kCWidth = 7;       // output positions per tile, along one output row
// Floats of a tile's partial sums.
constexpr int64_t kCPartial = kCPanel * kCWidth;
// Tiles per unit at most: their partial sums (1.75 KiB each) stay in L1, and on two threads
// the units are small enough to even out (64×56² 3×3: 16 against 32 tiles, 5 % faster on two
// threads, the same on one).
constexpr int64_t kCChunk = 16;
// Reduction steps of a block at most (cplan: blocks of about kBlockSteps, whole channels).
constexpr int64_t kCMaxSteps = 2 * kBlockSteps;

// One group's convolution of one image, vectorised over output channels.
struct CPlan {
  int64_t channels, outputs, height, width, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw;
  int64_t taps, reduction;
  int64_t row_tiles, tiles;  // per output row and per panel
  int64_t panels;
  int64_t cblock, blocks;  // input channels per block of the reduction, and the blocks
  int64_t chunk, chunks;   // tiles per unit (a run of one panel's tiles), units per panel
  bool whole;              // a thread keeps the whole panel packed, not only the last block
  bool tap_major;          // blocks packed [tap][channel][64], else [channel][tap][64]
};

// Lines to prefetch while a tile computes, one per step: `rows` runs of `bytes` from `at`,
// `stride` apart: a share of the next block's weights, which come from memory on large layers
// (the packing alone read 512×7² 3×3's 9 MiB in 0.46 ms, a third of the convolution).
struct Ahead {
  const char* at = nullptr;
  int64_t offset = 0, bytes = 0, stride = 0, rows = 0;
  __attribute__((always_inline)) void step() {
    if (rows == 0) return;
    _mm_prefetch(at + offset, _MM_HINT_T1);
    offset += 64;
    if (offset >= bytes) offset = 0, at += stride, --rows;
  }
};

// Tile t of a row: its first position and how many.
std::pair<int64_t, int64_t> ctile_span(const CPlan& p, int64_t t) {
  int64_t ow0 = t * p.ow / p.row_tiles;
  return {ow0, (t + 1) * p.ow / p.row_tiles - ow0};
}

// One tile of one block of the reduction: 64 output channels × up to 7 positions of a row.
struct CTile {
  Ahead ahead;
  const float* x;  // the block's first input channel
  const float* w;  // the block's packed weights (cpack)
  int64_t cb;      // channels of the block
  int64_t oh, ow0;
  float* partial;  // the sums of the blocks before (kCPartial floats, aligned)
  float* out;      // the panel's first output channel at (oh, ow0)
  bool first, last;
};

// One tap over the block's channels: the positions [LO, HI) of the tile read the image (those
// outside read the padding and are skipped).
template <int P, int SW, int LO, int HI>
__attribute__((target("avx512f,fma"), always_inline)) inline void ctap(__m512 (&acc)[4][P],
                                                                       const float* x,
                                                                       const float* w, int64_t cb,
                                                                       int64_t hw, int64_t ws,
                                                                       Ahead& ahead) {
  for (int64_t c = 0; c < cb; ++c, x += hw, w += ws) {
    ahead.step();
    // The pixels of a channel 6 ahead (each channel's are on lines of their own).
    _mm_prefetch(reinterpret_cast<const char*>(x + 6 * hw + LO * SW), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(x + 6 * hw + (HI - 1) * SW), _MM_HINT_T0);
    __m512 wv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) wv[v] = _mm512_load_ps(w + 16 * v);
#pragma GCC unroll 8
    for (int i = LO; i < HI; ++i) {
      __m512 b = _mm512_set1_ps(x[i * SW]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[v][i] = _mm512_fmadd_ps(wv[v], b, acc[v][i]);
    }
  }
}

// The first two stages of a transpose in registers, for groups of four rows r[4k] … r[4k + 3]
// (k < kGroups): afterwards lane q (128 bits) of out[4k + m] holds element 4q + m of each of
// the group's rows. cfinish and transpose16 finish it differently.
template <int kGroups>
__attribute__((target("avx512f"), always_inline)) inline void transpose_in_lanes(
    const __m512 (&r)[4 * kGroups], __m512 (&out)[4 * kGroups]) {
  __m512 u[4 * kGroups];
#pragma GCC unroll 8
  for (int k = 0; k < 2 * kGroups; ++k) {
    u[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    u[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < kGroups; ++k) {
    __m512d u0 = _mm512_castps_pd(u[4 * k]), u1 = _mm512_castps_pd(u[4 * k + 1]),
            u2 = _mm512_castps_pd(u[4 * k + 2]), u3 = _mm512_castps_pd(u[4 * k + 3]);
    out[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(u0, u2));
    out[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(u0, u2));
    out[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(u1, u3));
    out[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(u1, u3));
  }
}

// The tile's sums: added to the blocks' before (kept in t.partial), and after the last block
// written to the output.
template <int P>
__attribute__((target("avx512f"), always_inline)) inline void cfinish(const CPlan& p,
                                                                      const CTile& t,
                                                                      __m512 (&acc)[4][P]) {
  float* partial = t.partial;
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i) {
      float* at = partial + (v * kCWidth + i) * 16;
      if (!t.first) acc[v][i] = _mm512_add_ps(_mm512_load_ps(at), acc[v][i]);
      if (!t.last) _mm512_store_ps(at, acc[v][i]);
    }
  if (!t.last) return;
  // To NCHW: each vector of 16 channels × P positions transposed in registers to rows of
  // positions, two channels a register (eight lanes each), stored through masks.
  int64_t plane = p.oh * p.ow;
  const __mmask16 low = __mmask16((1u << P) - 1), high = __mmask16(low << 8);
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    __m512 rows[8], a[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) rows[i] = i < P ? acc[v][i < P ? i : 0] : _mm512_setzero_ps();
    transpose_in_lanes<2>(rows, a);
    // a[4k + m], 128-bit lane q: channel 4q + m of positions 4k … 4k + 3.
    float* out = t.out + 16 * v * plane;
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) {
      // Channels m and 8 + m; 4 + m and 12 + m.
      __m512 even = _mm512_shuffle_f32x4(a[m], a[4 + m], 0x88),
             odd = _mm512_shuffle_f32x4(a[m], a[4 + m], 0xDD);
      even = _mm512_shuffle_f32x4(even, even, 0xD8);
      odd = _mm512_shuffle_f32x4(odd, odd, 0xD8);
      _mm512_mask_storeu_ps(out + m * plane, low, even);
      _mm512_mask_storeu_ps(out + (8 + m) * plane - 8, high, even);
      _mm512_mask_storeu_ps(out + (4 + m) * plane, low, odd);
      _mm512_mask_storeu_ps(out + (12 + m) * plane - 8, high, odd);
    }
  }
}

template <int P, int SW>
__attribute__((target("avx512f,fma"))) void ctile(const CPlan& p, const CTile& t) {
  __m512 acc[4][P];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i) acc[v][i] = _mm512_setzero_ps();
  int64_t hw = p.height * p.width;
  Ahead ahead = t.ahead;
  int64_t ws =
      p.tap_major ? kCPanel : p.taps * kCPanel;  // from one channel's weights to the next's
  for (int64_t i = 0; i < p.kh; ++i) {
    int64_t y = t.oh * p.sh + i * p.dh - p.pt;
    if (y < 0 || y >= p.height) continue;  // a row of padding
    for (int64_t j = 0; j < p.kw; ++j) {
      int64_t x0 = t.ow0 * SW + j * p.dw - p.pl;
      int64_t lo = x0 >= 0 ? 0 : (SW - 1 - x0) / SW;
      int64_t hi = std::min<int64_t>(P, (p.width - x0 + SW - 1) / SW);
      if (lo >= hi) continue;
      const float* x = t.x + y * p.width + x0;
      const float* w = t.w + (i * p.kw + j) * (p.tap_major ? t.cb : 1) * kCPanel;
      // cplan admits no other ranges.
      if (lo == 0 && hi == P)
        ctap<P, SW, 0, P>(acc, x, w, t.cb, hw, ws, ahead);
      else if (lo == 1 && hi == P)
        ctap<P, SW, 1, P>(acc, x, w, t.cb, hw, ws, ahead);
      else if (lo == 0)
        ctap<P, SW, 0, P - 1>(acc, x, w, t.cb, hw, ws, ahead);
      else
        ctap<P, SW, 1, P - 1>(acc, x, w, t.cb, hw, ws, ahead);
    }
  }
  cfinish<P>(p, t, acc);
}

// Tiles of 7 positions: 28 accumulators, and GCC spills one of them on every step as soon as
// the 4 weights and the broadcast pixel are in registers too (33 registers), which cost 5–7 %
// (4 × 7 at 90–92 % of the FMA peak). Written in asm, each step two halves (two vectors of
// weights each), the 28 accumulators, 2 weights and the pixel take 31 registers: 97–100 %.
// Named variables, not an array: GCC keeps an array whose elements are asm operands in memory.
// The asm reads the weights and pixels through its two pointers; an operand for each region
// would exceed asm's 30 operands (the 14 accumulators count twice), so a "memory" clobber tells
// GCC that it reads memory: no store (the packing of a block, if it were inlined here) may move
// past it, and it is never hoisted out of its loop or merged with another.
#define RAXC_ACC7(X) \
  X(0, 0)            \
  X(0, 1)            \
  X(0, 2)            \
  X(0, 3)            \
  X(0, 4)            \
  X(0, 5)            \
  X(0, 6)            \
  X(1, 0)            \
  X(1, 1)            \
  X(1, 2)            \
  X(1, 3)            \
  X(1, 4)            \
  X(1, 5)            \
  X(1, 6)            \
  X(2, 0)            \
  X(2, 1)            \
  X(2, 2) X(2, 3) X(2, 4) X(2, 5) X(2, 6) X(3, 0) X(3, 1) X(3, 2) X(3, 3) X(3, 4) X(3, 5) X(3, 6)
// Position i of a half: its pixel (S bytes apart) broadcast, times the half's two weights.
#define RAXC_POS(S, i)                   \
  "vbroadcastss " #S "*" #i              \
  "(%[x]), %%zmm29\n\t"                  \
  "vfmadd231ps %%zmm29, %%zmm30, %[p" #i \
  "]\n\t"                                \
  "vfmadd231ps %%zmm29, %%zmm31, %[q" #i "]\n\t"
#define RAXC_MID(S) RAXC_POS(S, 1) RAXC_POS(S, 2) RAXC_POS(S, 3) RAXC_POS(S, 4) RAXC_POS(S, 5)
#define RAXC_HALF(BODY, A, B, W)                                                             \
  asm("vmovaps (%[w]), %%zmm30\n\tvmovaps 64(%[w]), %%zmm31\n\t" BODY                        \
      : [p0] "+v"(A##0), [p1] "+v"(A##1), [p2] "+v"(A##2), [p3] "+v"(A##3), [p4] "+v"(A##4), \
        [p5] "+v"(A##5), [p6] "+v"(A##6), [q0] "+v"(B##0), [q1] "+v"(B##1), [q2] "+v"(B##2), \
        [q3] "+v"(B##3), [q4] "+v"(B##4), [q5] "+v"(B##5), [q6] "+v"(B##6)                   \
      : [x] "r"(x), [w] "r"(W)                                                               \
      : "zmm29", "zmm30", "zmm31", "memory")
// One tap over the block's channels, positions as BODY lists them.
#define RAXC_TAP7(BODY)                                                            \
  for (int64_t c = 0; c < t.cb; ++c, x += hw, w += ws) {                           \
    ahead.step();                                                                  \
    _mm_prefetch(reinterpret_cast<const char*>(x + 6 * hw), _MM_HINT_T0);          \
    _mm_prefetch(reinterpret_cast<const char*>(x + 6 * hw + 6 * SW), _MM_HINT_T0); \
    RAXC_HALF(BODY, a0, a1, w);                                                    \
    RAXC_HALF(BODY, a2, a3, w + 32);                                               \
  }
#define RAXC_TAPS7(S)                                    \
  if (lo == 0 && hi == 7) {                              \
    RAXC_TAP7(RAXC_POS(S, 0) RAXC_MID(S) RAXC_POS(S, 6)) \
  } else if (lo == 1 && hi == 7) {                       \
    RAXC_TAP7(RAXC_MID(S) RAXC_POS(S, 6))                \
  } else if (lo == 0) {                                  \
    RAXC_TAP7(RAXC_POS(S, 0) RAXC_MID(S))                \
  } else {                                               \
    RAXC_TAP7(RAXC_MID(S))                               \
  }

template <int SW>
__attribute__((target("avx512f,fma"))) void ctile7(const CPlan& p, const CTile& t) {
#define RAXC_DECLARE(v, i) __m512 a##v##i = _mm512_setzero_ps();
  RAXC_ACC7(RAXC_DECLARE)
#undef RAXC_DECLARE
  int64_t hw = p.height * p.width;
  Ahead ahead = t.ahead;
  int64_t ws = p.tap_major ? kCPanel : p.taps * kCPanel;
  for (int64_t i = 0; i < p.kh; ++i) {
    int64_t y = t.oh * p.sh + i * p.dh - p.pt;
    if (y < 0 || y >= p.height) continue;
    for (int64_t j = 0; j < p.kw; ++j) {
      int64_t x0 = t.ow0 * SW + j * p.dw - p.pl;
      int64_t lo = x0 >= 0 ? 0 : (SW - 1 - x0) / SW;
      int64_t hi = std::min<int64_t>(7, (p.width - x0 + SW - 1) / SW);
      if (lo >= hi) continue;
      const float* x = t.x + y * p.width + x0;
      const float* w = t.w + (i * p.kw + j) * (p.tap_major ? t.cb : 1) * kCPanel;
      if constexpr (SW == 1) {
        RAXC_TAPS7(4)
      } else {
        RAXC_TAPS7(8)
      }
    }
  }
  __m512 acc[4][7];
#define RAXC_COPY(v, i) acc[v][i] = a##v##i;
  RAXC_ACC7(RAXC_COPY)
#undef RAXC_COPY
  cfinish<7>(p, t, acc);
}
#undef RAXC_TAPS7
#undef RAXC_TAP7
#undef RAXC_HALF
#undef RAXC_MID
#undef RAXC_POS
#undef RAXC_ACC7

using CTileFunction = void (*)(const CPlan&, const CTile&);

CTileFunction pick_ctile(int64_t positions, int64_t sw) {
#define RAXC_CTILE(P) \
  if (positions == P) return sw == 1 ? ctile<P, 1> : ctile<P, 2>;
  RAXC_CTILE(1)
  RAXC_CTILE(2)
  RAXC_CTILE(3)
  RAXC_CTILE(4)
  RAXC_CTILE(5)
  RAXC_CTILE(6)
#undef RAXC_CTILE
  return sw == 1 ? ctile7<1> : ctile7<2>;
}

// r[j] ← column j of the 16 × 16 matrix of rows r (lane l of the result: r[l][j]).
__attribute__((target("avx512f"), always_inline)) inline void transpose16(__m512 (&r)[16]) {
  __m512 a[16], b[16];
  transpose_in_lanes<4>(r, b);
  // b[4k + m], 128-bit lane q: column 4q + m of rows 4k … 4k + 3.
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    a[m] = _mm512_shuffle_f32x4(b[m], b[4 + m], 0x88);
    a[4 + m] = _mm512_shuffle_f32x4(b[m], b[4 + m], 0xDD);
    a[8 + m] = _mm512_shuffle_f32x4(b[8 + m], b[12 + m], 0x88);
    a[12 + m] = _mm512_shuffle_f32x4(b[8 + m], b[12 + m], 0xDD);
  }
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    r[m] = _mm512_shuffle_f32x4(a[m], a[8 + m], 0x88);
    r[8 + m] = _mm512_shuffle_f32x4(a[m], a[8 + m], 0xDD);
    r[4 + m] = _mm512_shuffle_f32x4(a[4 + m], a[12 + m], 0x88);
    r[12 + m] = _mm512_shuffle_f32x4(a[4 + m], a[12 + m], 0xDD);
  }
}

// Block `block` of a panel's weights (rows: its 64 output channels of the OIHW tensor) into
// dst as [tap][channel][64] or [channel][tap][64] (CPlan::tap_major): 16 rows × 16 steps read
// at a time, transposed in registers, each step's line stored where a table says.
__attribute__((target("avx512f"))) void cpack(const CPlan& p, const float* rows, int64_t block,
                                              float* dst) {
  int64_t c0 = block * p.cblock, cb = std::min(p.cblock, p.channels - c0);
  int64_t steps = cb * p.taps;
  // Where step s = (channel, tap) goes, in floats; 15 more for the last 16 steps read.
  int32_t at[kCMaxSteps + 15];
  for (int64_t c = 0, s = 0; c < cb; ++c)
    for (int64_t tap = 0; tap < p.taps; ++tap, ++s)
      at[s] = int32_t((p.tap_major ? tap * cb + c : s) * kCPanel);
  for (int64_t v = 0; v < 4; ++v) {
    const float* src = rows + 16 * v * p.reduction + c0 * p.taps;
    float* out = dst + 16 * v;
    int64_t s0 = 0;
    for (; s0 + 16 <= steps; s0 += 16) {
      const float* at_s0 = src + s0;
#pragma GCC unroll 16
      for (int l = 0; l < 16; ++l)
        _mm_prefetch(reinterpret_cast<const char*>(at_s0 + l * p.reduction + 128), _MM_HINT_T0);
        // Four steps at a time: lane group a of y[b] holds row 4a + b's four steps (128-bit
        // broadcast loads, blended), then a 4 × 4 transpose within each lane group.
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        __m512 y[4];
#pragma GCC unroll 4
        for (int b = 0; b < 4; ++b) {
          const float* row = at_s0 + b * p.reduction + 4 * c;
          __m512 r0 = _mm512_broadcast_f32x4(_mm_loadu_ps(row)),
                 r1 = _mm512_broadcast_f32x4(_mm_loadu_ps(row + 4 * p.reduction)),
                 r2 = _mm512_broadcast_f32x4(_mm_loadu_ps(row + 8 * p.reduction)),
                 r3 = _mm512_broadcast_f32x4(_mm_loadu_ps(row + 12 * p.reduction));
          y[b] = _mm512_mask_blend_ps(0xFF00, _mm512_mask_blend_ps(0x00F0, r0, r1),
                                      _mm512_mask_blend_ps(0xF000, r2, r3));
        }
        __m512d t0 = _mm512_castps_pd(_mm512_unpacklo_ps(y[0], y[1])),
                t1 = _mm512_castps_pd(_mm512_unpackhi_ps(y[0], y[1])),
                t2 = _mm512_castps_pd(_mm512_unpacklo_ps(y[2], y[3])),
                t3 = _mm512_castps_pd(_mm512_unpackhi_ps(y[2], y[3]));
        const int32_t* to = at + s0 + 4 * c;
        _mm512_store_ps(out + to[0], _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2)));
        _mm512_store_ps(out + to[1], _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2)));
        _mm512_store_ps(out + to[2], _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3)));
        _mm512_store_ps(out + to[3], _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3)));
      }
    }
    if (s0 < steps) {  // the block's last steps (masked loads are slow on Zen 5: only here)
      int64_t n = steps - s0;
      __mmask16 m = __mmask16((1u << n) - 1);
      __m512 r[16];
#pragma GCC unroll 16
      for (int l = 0; l < 16; ++l) r[l] = _mm512_maskz_loadu_ps(m, src + l * p.reduction + s0);
      transpose16(r);
      alignas(64) float lines[16][16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) _mm512_store_ps(lines[j], r[j]);
      for (int64_t j = 0; j < n; ++j) _mm512_store_ps(out + at[s0 + j], _mm512_load_ps(lines[j]));
    }
  }
}

// The plan of the channel-vectorised kernel, or false when it does not take the shape: output
// channels not a multiple of 64 per group, a stride above 2 along the rows, or a tile whose
// positions inside the image are not all but at most the first and the last.
bool cplan(const Plan& q, int threads, CPlan& p) {
  if (q.outputs % kCPanel != 0 || q.sw > 2) return false;
  p = CPlan{};
  std::tie(p.channels, p.outputs, p.height, p.width, p.kh, p.kw, p.oh, p.ow) =
      std::tuple{q.channels, q.outputs, q.height, q.width, q.kh, q.kw, q.oh, q.ow};
  std::tie(p.sh, p.sw, p.pt, p.pl, p.dh, p.dw) = std::tuple{q.sh, q.sw, q.pt, q.pl, q.dh, q.dw};
  if (q.kh == 1 && q.kw == 1 && q.sh == 1 && q.sw == 1 && q.in_place) {
    // A pointwise convolution: the image is one row.
    p.width = p.ow = q.height * q.width;
    p.height = p.oh = 1;
  }
  // A row in as few tiles as 7 positions allow, of sizes differing by at most one (ctile_span):
  // tiles of 4 positions ran at about 80 % of the peak, of 3 at 65 %. Tiles of 7 in asm
  // against those of 6 and 5 in C++ (both near the peak alone): 1–2 % faster for 64×56² 3×3
  // and 256×14² 1×1, fewer tiles reading the weights.
  p.row_tiles = ceil_div(p.ow, kCWidth);
  for (int64_t t = 0; t < p.row_tiles; ++t) {
    auto [ow0, positions] = ctile_span(p, t);
    for (int64_t j = 0; j < p.kw; ++j) {
      int64_t x0 = ow0 * p.sw + j * p.dw - p.pl;
      int64_t lo = x0 >= 0 ? 0 : (p.sw - 1 - x0) / p.sw;
      int64_t hi = std::min(positions, (p.width - x0 + p.sw - 1) / p.sw);
      if (lo < hi && (lo > 1 || hi < positions - 1)) return false;
    }
  }
  p.taps = p.kh * p.kw;
  p.reduction = p.channels * p.taps;
  p.tiles = p.oh * p.row_tiles;
  p.panels = p.outputs / kCPanel;
  // A panel packed whole when it fits in L2 beside the rest; else one block at a time (packing
  // 512×7² 3×3's panels of 1.2 MiB whole, the stores missed the caches: 0.45 ms of 1.5).
  p.whole = kCPanel * p.reduction * 4 <= (int64_t(512) << 10);
  int64_t blocks = ceil_div(p.reduction, std::max(kBlockSteps, p.taps));
  p.cblock = ceil_div(p.channels, blocks);
  p.blocks = ceil_div(p.channels, p.cblock);
  if (p.cblock * p.taps > kCMaxSteps) return false;  // kernels of more than 512 taps
  // Tap-major blocks: each tap's weights one run (64×56² 3×3 3 % faster); but their lines are
  // stored apart, and where few positions share each weight the packing weighs more
  // (512×7² 3×3 4 % slower): those keep the order of the rows.
  p.tap_major = p.oh * p.ow >= 128;
  // Units of at most kCChunk tiles, and about four per thread.
  p.chunks =
      std::min(p.tiles, std::max(ceil_div(p.tiles, kCChunk), ceil_div(4 * threads, p.panels)));
  p.chunk = ceil_div(p.tiles, p.chunks);
  p.chunks = ceil_div(p.tiles, p.chunk);
  return true;
}

struct CGroup {
  const CPlan* plan;
  const float* image;    // the group's first input channel
  const float* weights;  // the group's first output channel's weights
  // The group's weights packed already (cpack_all), or null: each unit packs what it uses.
  const float* packed = nullptr;
  float* out;    // the group's first output channel
  Epilogue epi;  // from the group's first output channel
};

// Floats of a packed panel, and where its block `b` starts in it: each block where a whole
// panel keeps it (run_cunit).
int64_t cpanel_floats(const CPlan& p) { return kCPanel * p.reduction; }
int64_t cblock_start(const CPlan& p, int64_t b) { return kCPanel * b * p.cblock * p.taps; }

// Panels [first, first + count) of `weights` packed into dst, panel after panel (cpack_all).
void cpack_panels(const CPlan& p, const float* weights, float* dst, int64_t first, int64_t count) {
  for (int64_t panel = first; panel < first + count; ++panel)
    for (int64_t b = 0; b < p.blocks; ++b)
      cpack(p, weights + panel * cpanel_floats(p), b,
            dst + panel * cpanel_floats(p) + cblock_start(p, b));
}

struct CPackJob {
  const CPlan* plan;
  const float* weights;
  float* dst;
};

int32_t cpack_chunk(int64_t begin, int64_t end, void* closure) {
  const CPackJob& job = *static_cast<const CPackJob*>(closure);
  cpack_panels(*job.plan, job.weights, job.dst, begin, end - begin);
  return 0;
}

// All `panels` panels of `weights` (every group's: a group's panels follow the group before's)
// packed into dst as run_cunit would pack them one block at a time, on the runtime's threads.
void cpack_all(const CPlan& p, const float* weights, int64_t panels, float* dst, int threads) {
  CPackJob job{&p, weights, dst};
  if (threads > 1 && panels > 1 && panels * cpanel_floats(p) >= (int64_t(1) << 18))
    raxc_parallel_for(0, panels, cpack_chunk, &job);
  else
    cpack_panels(p, weights, dst, 0, panels);
}

// A thread's buffers: the panel's packed weights (blocks packed as first used), the partial
// sums of a unit's tiles.
struct CWork {
  float* packed = nullptr;
  float* partial = nullptr;
  int64_t panel = -1, blocks = 0;  // the panel packed, and how many of its blocks
};

void cwork(const CGroup& g, CWork& w) {
  const CPlan& p = *g.plan;
  int64_t packed = g.packed ? 0 : kCPanel * (p.whole ? p.reduction : p.cblock * p.taps);
  float* buf = thread_buffer(Buffer::kChannels, packed + p.chunk * kCPartial);
  w.packed = buf;
  w.partial = buf + packed;
  w.panel = -1;
  w.blocks = 0;
}

// Unit `unit`: a run of one panel's tiles, block by block of the reduction.
void run_cunit(const CGroup& g, CWork& w, int64_t unit) {
  const CPlan& p = *g.plan;
  int64_t panel = unit / p.chunks, t0 = unit % p.chunks * p.chunk;
  int64_t t1 = std::min(p.tiles, t0 + p.chunk);
  if (w.panel != panel) {
    w.panel = panel;
    w.blocks = 0;
  }
  const float* rows = g.weights + panel * cpanel_floats(p);
  int64_t plane = p.oh * p.ow, hw = p.height * p.width;
  float* out = g.out + panel * kCPanel * plane;
  for (int64_t b = 0; b < p.blocks; ++b) {
    int64_t c0 = b * p.cblock;
    const float* packed;
    if (g.packed) {
      packed = g.packed + panel * cpanel_floats(p) + cblock_start(p, b);
    } else {
      // Whole panels: blocks packed in order, each where it stays; else the last block packed.
      float* mine = w.packed + (p.whole ? cblock_start(p, b) : 0);
      if (p.whole ? b >= w.blocks : w.blocks != b + 1) {
        cpack(p, rows, b, mine);
        w.blocks = b + 1;
      }
      packed = mine;
    }
    CTile t;
    t.x = g.image + c0 * hw;
    t.w = packed;
    t.cb = std::min(p.cblock, p.channels - c0);
    t.first = b == 0;
    t.last = b == p.blocks - 1;
    // The next block's weights, packed or still to be packed, are fetched into L2 a share per
    // tile, while the tiles compute.
    bool ahead = b + 1 < p.blocks && (g.packed || !p.whole || b + 1 >= w.blocks);
    int64_t next = (c0 + p.cblock) * p.taps;
    int64_t bytes = std::min(p.cblock, p.channels - c0 - p.cblock) * p.taps * 4;
    for (int64_t tile = t0; tile < t1; ++tile) {
      t.ahead = Ahead{};
      int64_t r0 = kCPanel * (tile - t0) / (t1 - t0), r1 = kCPanel * (tile - t0 + 1) / (t1 - t0);
      if (ahead && g.packed) {  // one run: the share of the tile's rows, as lines
        t.ahead.at = reinterpret_cast<const char*>(packed + kCPanel * p.cblock * p.taps);
        t.ahead.offset = r0 * bytes / 64 * 64;
        t.ahead.bytes = r1 * bytes;
        t.ahead.rows = r1 > r0 ? 1 : 0;
      } else if (ahead) {
        t.ahead.at = reinterpret_cast<const char*>(rows + r0 * p.reduction + next);
        t.ahead.bytes = bytes;
        t.ahead.stride = p.reduction * 4;
        t.ahead.rows = r1 - r0;
      }
      t.oh = tile / p.row_tiles;
      auto [ow0, positions] = ctile_span(p, tile % p.row_tiles);
      t.ow0 = ow0;
      t.partial = w.partial + (tile - t0) * kCPartial;
      t.out = out + t.oh * p.ow + t.ow0;
      pick_ctile(positions, p.sw)(p, t);
    }
  }
  // The unit's tiles cover consecutive positions: whole rows, split in order (ctile_span).
  auto [first, ignored] = ctile_span(p, t0 % p.row_tiles);
  auto [last, positions] = ctile_span(p, (t1 - 1) % p.row_tiles);
  finish(g.epi, false, g.out, plane, panel * kCPanel, (panel + 1) * kCPanel,
         t0 / p.row_tiles * p.ow + first, (t1 - 1) / p.row_tiles * p.ow + last + positions);
}

struct CJob {
  const CGroup* g = nullptr;
  std::unique_ptr<Band[]> bands;  // t0, t1: the band's units
  int64_t count = 0;
};

// As run_bands: band `home` first, then the others' remaining units.
int32_t run_cbands(int64_t home, int64_t, void* closure) {
  CJob& job = *static_cast<CJob*>(closure);
  CWork w;
  try {
    cwork(*job.g, w);
  } catch (...) {
    return 1;
  }
  for (int64_t i = 0; i < job.count; ++i) {
    Band& band = job.bands[static_cast<size_t>((home + i) % job.count)];
    for (int64_t u; (u = band.next.fetch_add(1, std::memory_order_relaxed)) < band.units;)
      run_cunit(*job.g, w, band.t0 + u);
  }
  return 0;
}

void run_cgroup(const CGroup& g, int threads) {
  const CPlan& p = *g.plan;
  int64_t units = p.panels * p.chunks;
  int64_t macs = p.outputs * p.oh * p.ow * p.reduction;
  if (threads > 1 && macs >= kParallelMacs && units > 1) {
    CJob job;
    job.g = &g;
    job.count = std::min<int64_t>(threads, units);
    job.bands.reset(new Band[static_cast<size_t>(job.count)]);
    for (int64_t b = 0; b < job.count; ++b) {
      Band& band = job.bands[static_cast<size_t>(b)];
      band.t0 = units * b / job.count;
      band.units = units * (b + 1) / job.count - band.t0;
    }
    if (raxc_parallel_for(0, threads, run_cbands, &job) != 0)
      throw_error("RX5026", {"(convolution buffer)", "float32"});
    return;
  }
  CWork w;
  cwork(g, w);
  for (int64_t u = 0; u < units; ++u) run_cunit(g, w, u);
}
#endif

// ---------------------------------------------------------------------------- the packed function

#ifdef RAXC_CONV_X86
// The weights of every group packed whole (cpack_all), or null where each unit is to
// pack the blocks it uses as it goes, in cache: packed once for all of a call's images (ResNet-18
// at batch 8 packed each layer's weights 8 times), and beside a sealed weight tensor (a
// parameter `raxc run` was given) kept for every later call, as oneDNN reorders its weights
// once, outside the calls its users time (512×7² 3×3: the packing was 17 % of a call).
std::shared_ptr<const Tensor> packed_weights(const CPlan& p, const Tensor& w, int64_t groups,
                                             int64_t images, int threads) {
  if (!w.sealed() && images < 2) return nullptr;
  // The packing depends on the plan only through these (the rest follows from w's shape).
  std::string key = "raxc.conv2d_nchw_f32 cpack " + std::to_string(p.cblock) +
                    (p.tap_major ? " tap-major" : " channel-major");
  if (w.sealed())
    if (std::shared_ptr<const void> kept = w.derived(key))
      return std::static_pointer_cast<const Tensor>(kept);
  TensorPtr packed = Tensor::empty({w.numel()}, w.dtype(), Tensor::Fill::Undefined);
  if (!packed) throw_error("RX5026", {"(packed convolution weights)", "float32"});
  cpack_all(p, w.data_as<float>(), groups * p.panels, packed->data_as<float>(), threads);
  if (w.sealed()) w.keep_derived(key, packed);
  return packed;
}
#endif

[[noreturn]] void fail(const std::string& message) {
  throw_error("RX5032", {"raxc.conv2d_nchw_f32 (or a fused form): " + message});
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

const Tensor& float32_tensor(const std::vector<Value>& args, size_t i, const char* what) {
  const TensorPtr* t = i < args.size() ? args[i].tensor() : nullptr;
  if (!t || !*t) fail(std::string(what) + " must be a tensor");
  DLDataType d = (*t)->dtype();
  if (d.code != kDLFloat || d.bits != 32 || d.lanes != 1)
    fail(std::string(what) + " must be float32, not " + dtype_name(d));
  return **t;
}

// The epilogue's operands (arguments 2 on), checked against the output.
Epilogue epilogue_of(const Conv2dEpilogue& form, const std::vector<Value>& args,
                     const Tensor& out) {
  Epilogue e;
  size_t next = 2;
  if (form.bias) {
    const Tensor& bias = float32_tensor(args, next++, "bias");
    if (bias.numel() != out.shape()[1])
      fail("bias " + shape_text(bias.shape()) + " is not one value per output channel of " +
           shape_text(out.shape()));
    e.bias = bias.data_as<float>();
  }
  if (form.residual) {
    const Tensor& residual = float32_tensor(args, next, "residual");
    if (residual.shape() != out.shape())
      fail("residual " + shape_text(residual.shape()) + " is not shaped as the output " +
           shape_text(out.shape()));
    e.residual = residual.data_as<float>();
  }
  e.relu = form.relu;
  return e;
}

}  // namespace

Value conv2d_nchw_f32(const std::vector<Value>& args, Conv2dPath path, Conv2dEpilogue form) {
  size_t tensors = 2 + form.extra();  // x, w, then the epilogue's operands
  if (args.size() != tensors + 10)
    fail("expects (x, w" + form.operands() + ", 9 integers, out), got " +
         std::to_string(args.size()) + " arguments");
  const Tensor& x = float32_tensor(args, 0, "x");
  const Tensor& w = float32_tensor(args, 1, "w");
  const Tensor& out = float32_tensor(args, args.size() - 1, "out");
  int64_t at[9];
  for (size_t i = 0; i < 9; ++i) {
    const auto* prim = args[tensors + i].get_if<Prim>();
    if (!prim || prim->is_float())
      fail("argument " + std::to_string(tensors + i) + " must be an integer");
    at[i] = prim->i;
  }
  auto [sh, sw, pt, pl, pb, pr, dh, dw, groups] =
      std::tuple{at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7], at[8]};
  if (x.ndim() != 4 || w.ndim() != 4 || out.ndim() != 4 || groups <= 0 || sh <= 0 || sw <= 0 ||
      dh <= 0 || dw <= 0 || pt < 0 || pl < 0 || pb < 0 || pr < 0)
    fail("x " + shape_text(x.shape()) + ", w " + shape_text(w.shape()) +
         ": 4-d operands, positive strides, dilations and groups and no negative padding "
         "expected");
  const auto &xs = x.shape(), &ws = w.shape();
  int64_t images = xs[0], channels = xs[1], outputs = ws[0];
  Plan p{};
  p.channels = ws[1];
  p.outputs = groups > 0 ? outputs / groups : 0;
  p.height = xs[2];
  p.width = xs[3];
  p.kh = ws[2];
  p.kw = ws[3];
  std::tie(p.sh, p.sw, p.pt, p.pl, p.dh, p.dw) = std::tuple{sh, sw, pt, pl, dh, dw};
  int64_t hp = p.height + pt + pb, wp = p.width + pl + pr;
  p.oh = (hp - dh * (p.kh - 1) - 1) / sh + 1;
  p.ow = (wp - dw * (p.kw - 1) - 1) / sw + 1;
  std::vector<int64_t> expected{images, outputs, p.oh, p.ow};
  if (channels != p.channels * groups || outputs % groups != 0 || out.shape() != expected)
    fail("x " + shape_text(xs) + " and w " + shape_text(ws) + " do not give the output " +
         shape_text(out.shape()));
  if (out.numel() == 0) return Value{Tuple{}};
  Epilogue epi = epilogue_of(form, args, out);
  const float* xp = x.data_as<float>();
  const float* wt = w.data_as<float>();
  float* op = out.data_as<float>();
  int64_t in_size = p.height * p.width, out_size = p.oh * p.ow;
  bool generic = path == Conv2dPath::kDirectGeneric || matmul_uses_generic_kernel();
#ifndef RAXC_CONV_X86
  generic = true;
#endif
  // The epilogue from the first output channel of group g of image `image`, and (finish_all)
  // applied to all of that group's outputs at once.
  auto group_epilogue = [&](int64_t image, int64_t g) {
    return epi.at(image * outputs * out_size, g * p.outputs, out_size);
  };
  auto finish_all = [&](int64_t image, int64_t g) {
    finish(group_epilogue(image, g), generic, op + (image * outputs + g * p.outputs) * out_size,
           out_size, 0, p.outputs, 0, out_size);
  };
  if (p.channels == 0 || p.kh == 0 || p.kw == 0) {  // an empty sum
    std::memset(op, 0, static_cast<size_t>(out.numel()) * sizeof(float));
    for (int64_t image = 0; image < images; ++image)
      for (int64_t g = 0; g < groups; ++g) finish_all(image, g);
    return Value{Tuple{}};
  }

  bool pointwise =
      p.kh == 1 && p.kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && pb == 0 && pr == 0;
  if (path == Conv2dPath::kGemm && pointwise) {
    for (int64_t image = 0; image < images; ++image)
      for (int64_t g = 0; g < groups; ++g) {
        multiply_f32(
            wt + g * p.outputs * p.channels, xp + (image * channels + g * p.channels) * in_size,
            op + (image * outputs + g * p.outputs) * out_size, p.outputs, in_size, p.channels);
        finish_all(image, g);
      }
    return Value{Tuple{}};
  }

  p.generic = generic;
  p.in_place = pt == 0 && pl == 0 && pb == 0 && pr == 0 && sh == 1 && sw == 1;
  int threads = raxc_num_threads();
#ifdef RAXC_CONV_X86
  if (!generic && (path == Conv2dPath::kAuto || path == Conv2dPath::kChannels)) {
    CPlan cp;
    if (cplan(p, threads, cp)) {
      std::shared_ptr<const Tensor> packed = packed_weights(cp, w, groups, images, threads);
      for (int64_t image = 0; image < images; ++image)
        for (int64_t g = 0; g < groups; ++g) {
          CGroup gc;
          gc.plan = &cp;
          gc.image = xp + (image * channels + g * p.channels) * in_size;
          gc.weights = wt + g * p.outputs * p.channels * p.kh * p.kw;
          if (packed) gc.packed = packed->data_as<float>() + (gc.weights - wt);
          gc.out = op + (image * outputs + g * p.outputs) * out_size;
          gc.epi = group_epilogue(image, g);
          run_cgroup(gc, threads);
        }
      return Value{Tuple{}};
    }
  }
#endif
  if (path == Conv2dPath::kChannels && !generic)
    fail("x " + shape_text(xs) + " and w " + shape_text(ws) +
         ": not a shape the channel-vectorised kernel takes");
  // A dense source (rows of the output's width, one copy per kernel column) throws no position
  // away, but costs KW copies of the image: only when it saves a sixth of the vectors (7×7:
  // 3 and a tail, not 4; 14×14 saves 1 of 14, not worth its copy).
  int64_t wide = vectors_of((p.oh - 1) * ceil_div(wp, sw) + p.ow, false);
  p.dense = !p.in_place && 6 * vectors_of(p.oh * p.ow, true) <= 5 * wide;
  p.ph = p.in_place ? p.height : ceil_div(hp, sh);
  p.pw = p.in_place ? p.width : p.dense ? p.ow : ceil_div(wp, sw);
  p.plane = p.dense ? p.kw * sh * p.ph * p.ow : sh * sw * p.ph * p.pw;
  p.positions = (p.oh - 1) * p.pw + p.ow;
  p.reduction = p.channels * p.kh * p.kw;
  p.tail = p.pw == p.ow && p.positions > 16 && p.positions % 16 == 1 ? 1 : 0;
  int64_t vectors = p.positions - p.tail;  // positions computed in vectors
  bool small = p.tail || (vectors > 16 * kMaxNV && vectors <= 16 * kSmallNV);
  p.mr = small ? kSmallMR : kMR;
  p.nv = small && !p.tail ? kSmallNV : kMaxNV;
  p.panels = ceil_div(p.outputs, p.mr);
  p.tiles = ceil_div(vectors, 16 * p.nv);
  int64_t taps = p.kh * p.kw;
  int64_t blocks = ceil_div(p.channels * taps, std::max(kBlockSteps, taps));
  p.block = ceil_div(p.channels, blocks) * taps;

  p.phase_rows.assign(static_cast<size_t>(sh), false);
  p.phase_columns.assign(static_cast<size_t>(sw), false);
  for (int64_t i = 0; i < p.kh; ++i) p.phase_rows[static_cast<size_t>(dh * i % sh)] = true;
  for (int64_t j = 0; j < p.kw; ++j) p.phase_columns[static_cast<size_t>(dw * j % sw)] = true;
  if (p.dense && !generic && p.height * p.width <= 64) p.dense_index = dense_index(p);
  // Where step (c, i, j) reads: channel c, phase ((dh·i) mod sh, (dw·j) mod sw), shifted by
  // ((dh·i) div sh) rows and ((dw·j) div sw) columns; in a dense source, copy j, row phase
  // (dh·i) mod sh, shifted by rows only.
  std::vector<int64_t> offsets(static_cast<size_t>(p.reduction));
  for (int64_t c = 0, s = 0; c < p.channels; ++c)
    for (int64_t i = 0; i < p.kh; ++i)
      for (int64_t j = 0; j < p.kw; ++j, ++s) {
        int64_t row = dh * i / sh * p.pw;
        offsets[static_cast<size_t>(s)] =
            p.dense ? c * p.plane + (j * sh + dh * i % sh) * p.ph * p.ow + row
                    : c * p.plane + ((dh * i % sh) * sw + dw * j % sw) * p.ph * p.pw + row +
                          dw * j / sw;
      }
  // The source copy, then the tail's pixels.
  int64_t copy_size = p.in_place ? 0 : p.channels * p.plane;
  float* buffer = thread_buffer(Buffer::kSource, copy_size + p.tail * p.reduction);
  for (int64_t image = 0; image < images; ++image)
    for (int64_t g = 0; g < groups; ++g) {
      GroupConv gc;
      gc.plan = &p;
      gc.image = xp + (image * channels + g * p.channels) * in_size;
      gc.weights = wt + g * p.outputs * p.reduction;
      gc.source = p.in_place ? gc.image : buffer;
      gc.copy = buffer;
      gc.tail = buffer + copy_size;
      if (p.tail) fill_tail(p, gc.image, gc.tail);
      gc.offsets = offsets.data();
      gc.out = op + (image * outputs + g * p.outputs) * out_size;
      gc.generic = generic;
      gc.epi = group_epilogue(image, g);
      run_group(gc, threads);
    }
  return Value{Tuple{}};
}

std::vector<std::pair<const char*, PackedFunction>> conv2d_builtins() {
  std::vector<std::pair<const char*, PackedFunction>> all;
  // Every epilogue form; the names live as long as the process (the registry is built once).
  static std::vector<std::string> names;
  names.reserve(8);  // no reallocation: the pointers taken below stay valid
  for (int flags = 0; flags < 8; ++flags) {
    Conv2dEpilogue form{(flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0};
    names.push_back("raxc.conv2d_nchw" + form.suffix() + "_f32");
    all.emplace_back(names.back().c_str(), [form](const std::vector<Value>& args) {
      return conv2d_nchw_f32(args, Conv2dPath::kAuto, form);
    });
  }
  return all;
}

}  // namespace raxc::runtime
