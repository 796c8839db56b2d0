// The run-time kernels of float32 R.matmul and R.linear: "raxc.matmul_f32"(a, b, out) and
// "raxc.linear_f32"(x, w[, bias], out), destination-passing packed functions
// (R.call_dps_packed) that legalization (backend/legalize/nn.cpp, the operators' rows) emits
// instead of a TIR loop nest when the operands and the result are float32. It follows
// numpy's matmul exactly as the TIR lowering does: a 1-D operand is promoted and its axis
// dropped, batch axes broadcast (right-aligned, an extent of 1 stretches), products accumulate
// in float32.
//
// Why a run-time kernel and not generated loops: speed needs BLIS-style packing and a
// register-tiled micro-kernel (../shared/research/backend.md §2.3, §3.2: 92 % of peak); here it
// is C++ with intrinsics compiled once with the runtime, so it costs no JIT time per module (a
// heavily unrolled GEMM module takes 120–310 ms to JIT, against the compile budgets of the
// speed issue), it is the same code in `raxc run` and in built libraries (the runtime needs no
// LLVM), and the lowered module stays plain .rx (`raxc lower` prints the call_dps_packed).
//
// Structure (BLIS): jc (NC columns) → pc (KC of the reduction) → ic (MC rows) → pack A into
// MR-row panels → jr → ir → micro-kernel MR×NR, accumulators in registers, edges handled by
// masked stores (packing pads with zeros). The first row block packs B into NR-column panels as
// it goes, the first tile of each panel writing it packed as it reads it, while the tiles before
// prefetch its rows (PanelPrefetch); blocks are split evenly
// (K = 1025 is 3 × 342, not 2 × 512 + 1). Two micro-kernels: 12×32 on AVX-512 (24 zmm
// accumulators, 2 loads + 12 broadcasts + 24 FMAs per k step; variants of 16 columns for edges
// of at most 16, and of 8 and 4 rows for a last panel of A that short), chosen at run time with
// __builtin_cpu_supports, and a portable 4×16 one for every other CPU (or when RAXC_MATMUL_GENERIC
// is set, which the tests use to exercise it on AVX-512 machines). A is read in place when its
// panels meet few panels of B (N ≤ 8·NR: packing would cost more than it saves). A few rows (M ≤ 4,
// GEMV) skip packing altogether: they stream B once, four rows at a time and prefetched, which is
// bandwidth-bound; on several threads each streams its own rows of B (split_depth).
//
// Epilogues: "raxc.matmul_bias_gelu_f32" and the other names matmul_builtins registers are the
// same products followed by a scale, a bias per column, GELU or ReLU and a residual (what
// backend/fuse/epilogue.cpp folds into a product), applied to each micro-kernel tile by the
// thread that completes it, right after its last block of the reduction, while it is in L1. A
// bias and a residual alone need no pass of their own: the tile's first block starts from the
// bias and adds the residual as it stores (TileInput).
//
// Threads: the runtime's pool (raxc_parallel_for), only above 8M multiply-adds (~100 µs at full
// speed; below, waking a worker costs more than it saves). Threads claim units of work (a run of
// whole products of a batch per thread, or one product per unit when they do not divide evenly;
// a part of the reduction, or column groups, of a product of few rows; for one large product,
// a part of its rows or columns per thread, each packing its own B) from a counter. The packing
// buffers are per thread and kept, so a repeated call touches no fresh pages (first touch costs
// 10–22 µs per page on this VM).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RAXC_MATMUL_X86 1
#endif

#include "backend/runtime/error.h"
#include "backend/runtime/matmul.h"
#include "backend/runtime/packed.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/storage.h"
#include "backend/runtime/tensor.h"

namespace raxc::runtime {
namespace {

// Cache blocking (Zen 5: L1d 48 KiB, L2 1 MiB): an MC×KC block of A is 240 KiB in L2, a KC×NC
// block of B 2 MiB in L2/L3, a KC×NR panel of B 64 KiB streams from L2. KC is the reduction
// summed in registers before a tile of C is loaded and stored again: at 256, C made 8 passes
// through memory for K = 2048, and 1024³ ran 5 % slower on one thread and 14 % on two (2048³:
// 10 %) than at 512.
constexpr int64_t kKC = 512;
constexpr int64_t kMaxNR = 32;  // the widest micro-kernel's NR
constexpr int64_t kMC = 120;    // a multiple of both kernels' MR
constexpr int64_t kNC = 1024;
// A product of up to this many rows packs all of A's rows once per block of the reduction.
constexpr int64_t kAllPackedRows = 256;
// Rows up to this many take the unpacked path.
constexpr int64_t kSmallM = 4;
// Multiply-adds below which one thread does the whole product (~50–100 µs at full speed).
constexpr int64_t kParallelMacs = int64_t(8) << 20;
// A product of few rows is split over the reduction when each thread gets this many rows of B
// at least, and the other threads' sums (m × n floats each) take at most this many floats:
// adding them up then costs a few per cent of reading B. Else it is split by columns.
constexpr int64_t kSmallDepthMin = 256;
constexpr int64_t kSmallPartialsMax = int64_t(1) << 20;

// What happens to each element of C once its sum is complete, while its tile is still in L1
// (a fused epilogue, backend/fuse/epilogue.cpp): it is multiplied by a scale, the bias of its
// column added, the activation applied, then the element of a residual tensor at the same
// index added. The thread that finished the tile's last block of the reduction applies it, so
// C makes no second pass through memory.
enum class Activation : uint8_t { kNone, kGelu, kRelu };
struct Epilogue {
  const float* scale = nullptr;  // one float
  const float* bias = nullptr;   // n floats, one per column
  Activation act = Activation::kNone;
  const float* residual = nullptr;  // laid out as C (its row stride ldc)
  bool any() const { return scale || bias || act != Activation::kNone || residual; }
  // A bias and a residual with nothing between them: the tiles start from the bias and add the
  // residual as they store their first block (TileInput), so no epilogue pass is needed.
  bool folded() const { return !scale && act == Activation::kNone; }
  // A scale alone (attention's q·kᵀ / √d): the tiles multiply their sums by it as they store
  // the last block of the reduction (TileInput::scale), so no epilogue pass is needed.
  bool scale_only() const { return scale && !bias && act == Activation::kNone && !residual; }
};

// One product C[m×n] (+)= A[m×k] · B[k×n], strides in elements, and its epilogue.
struct Gemm {
  const float* a;
  const float* b;
  float* c;
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  bool bt;  // B given transposed (R.linear's weight): element (p, j) at b[j * ldb + p]
  Epilogue epi = {};
};

// Whether B may be read in place: only when it is a plain matrix.
bool b_in_place_ok(const Gemm& g) { return !g.bt; }

// What a tile's sum over its block of the reduction starts from and is added to: `bias` (a row of
// nr floats, the same for every row of the tile; null: zeros) before the products, and the tile
// `add` (row stride ld_add; null: nothing) after them, the whole then multiplied by `scale` (one
// float; null: none). C itself for a block after the first; the product's bias and residual for
// the first when its epilogue has nothing else, its scale for the last when it is the only step
// (block_product), so that the tile needs no epilogue pass.
struct TileInput {
  const float* add = nullptr;
  int64_t ld_add = 0;
  const float* bias = nullptr;
  const float* scale = nullptr;
};

// c[0..mr)×[0..nr) = bias + A's rows times B's columns over kc + add (TileInput). A is packed (lda
// == 0: k-major, MR floats per k, zero padded) or read in place (row stride lda, rows past mr never
// stored); B is a packed panel (ldb == 0: NR floats per k, zero padded, so an edge panel's loads
// need no masks) or read in place (row stride ldb; columns past nr never read).
using MicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float* c, int64_t ldc, int64_t mr, int64_t nr, const TileInput& in);
// micro for a tile of packed A (lda == 0) times a panel of B that block_product packs as its
// tiles go: with `src`, the tile reads the panel from B itself (row stride ld, columns past nr
// never read) and writes it packed to `panel` as it goes; without, it reads `panel`. With
// `next`, it also brings lines of the next panel's source into the cache: one line every
// 2^every_log2 steps of k, two lines (a row of a panel, 128 bytes) per row of `next` (row stride
// ld), as many rows as that covers.
using MicroStreamKernel = void (*)(int64_t kc, const float* a, float* panel, const float* src,
                                   int64_t ld, float* c, int64_t ldc, int64_t mr, int64_t nr,
                                   const TileInput& in, const float* next, int every_log2);
// Columns [j0, j1) of C for an m ≤ kSmallM product, unpacked.
using SmallKernel = void (*)(const Gemm& g, int64_t j0, int64_t j1);

// g's epilogue on rows [i0, i0 + rows) × columns [j0, j0 + cols) of C.
using EpilogueKernel = void (*)(const Gemm& g, int64_t i0, int64_t rows, int64_t j0, int64_t cols);

struct Kernel {
  int64_t mr, nr;
  MicroKernel micro;
  SmallKernel small;
  EpilogueKernel epilogue;
  MicroStreamKernel micro_stream;  // null: the kernel has no such form
};

// A[mc×kc] → panels of mr rows, each k-major (mr floats per k), the last padded with zeros.
void pack_a_block(const float* a, int64_t lda, int64_t mc, int64_t kc, int64_t mr, float* out);

// ---------------------------------------------------------------------------- portable kernels

constexpr int64_t kGenericMR = 4, kGenericNR = 16;

void micro_generic(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                   int64_t ldc, int64_t mr, int64_t nr, const TileInput& in) {
  float acc[kGenericMR][kGenericNR] = {};
  for (int64_t r = 0; in.bias && r < kGenericMR; ++r)
    for (int64_t j = 0; j < std::min(nr, kGenericNR); ++j) acc[r][j] = in.bias[j];
  for (int64_t p = 0; p < kc; ++p) {
    float row[kGenericNR] = {};
    const float* b_row = b + p * (ldb == 0 ? kGenericNR : ldb);
    for (int64_t j = 0; j < std::min(nr, kGenericNR); ++j) row[j] = b_row[j];
    for (int64_t r = 0; r < kGenericMR; ++r) {
      float x = lda == 0 ? a[p * kGenericMR + r] : a[std::min(r, mr - 1) * lda + p];
      for (int64_t j = 0; j < kGenericNR; ++j) acc[r][j] += x * row[j];
    }
  }
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nr; ++j) {
      float x = in.add ? in.add[r * in.ld_add + j] + acc[r][j] : acc[r][j];
      c[r * ldc + j] = in.scale ? x * *in.scale : x;
    }
}

void small_generic(const Gemm& g, int64_t j0, int64_t j1) {
  for (int64_t i = 0; i < g.m; ++i) {
    float* c = g.c + i * g.ldc;
    for (int64_t j = j0; j < j1; ++j) c[j] = 0.f;
    for (int64_t p = 0; p < g.k; ++p) {
      float a = g.a[i * g.lda + p];
      const float* b = g.b + p * g.ldb;
      for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
    }
  }
}

// GELU as the generated code computes it (legalization's x · (0.5 + erf(x · √½) · 0.5), erf
// the rational approximation of backend/codegen/vector_math.cpp: x·P(x²)/Q(x²) on [-4, 4]),
// so a fused product rounds as the separate kernel did.
constexpr float kErfP[] = {1.967192328e-08f, -1.942187023e-06f, 1.412652185e-04f, 3.699838348e-03f,
                           5.057508006e-02f, 2.000434868e-01f,  1.128379115e+00f};
constexpr float kErfQ[] = {9.539218874e-04f, 1.435406281e-02f, 1.150345719e-01f, 5.106157212e-01f,
                           1.0f};
constexpr float kSqrtHalf = 0.70710678118654757f;

float gelu_scalar(float x) {
  float c = std::min(std::max(x * kSqrtHalf, -4.0f), 4.0f), t = c * c;
  float p = kErfP[0], q = kErfQ[0];
  for (size_t i = 1; i < std::size(kErfP); ++i) p = std::fma(p, t, kErfP[i]);
  for (size_t i = 1; i < std::size(kErfQ); ++i) q = std::fma(q, t, kErfQ[i]);
  float erf = c * p / q;
  return x * (0.5f + erf * 0.5f);
}

void epilogue_generic(const Gemm& g, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  const Epilogue& e = g.epi;
  for (int64_t i = i0; i < i0 + rows; ++i)
    for (int64_t j = j0; j < j0 + cols; ++j) {
      float& x = g.c[i * g.ldc + j];
      if (e.scale) x *= *e.scale;
      if (e.bias) x += e.bias[j];
      if (e.act == Activation::kGelu) x = gelu_scalar(x);
      if (e.act == Activation::kRelu) x = std::max(x, 0.0f);
      if (e.residual) x += e.residual[i * g.ldc + j];
    }
}

// ---------------------------------------------------------------------------- AVX-512 kernels
#ifdef RAXC_MATMUL_X86
constexpr int64_t kAvxMR = 12, kAvxNR = 32;
static_assert(kAvxNR <= kMaxNR && kGenericNR <= kMaxNR);

// NV zmm columns (2: the full 32-wide panel; 1: an edge of at most 16 columns, half the work);
// kEdge: fewer than 16·NV columns of B read in place, loaded through masks (B may end there).
// A packed panel is zero padded and loaded whole: masked loads made the edge tiles of a 497- or
// 513-column product cost 2–3 times their share (777×1025·513 ran at 170 GFLOP/s, 186 without).
// MR: the rows computed, 12 (a full panel), or 8 or 4 for a packed panel of at most that many
// rows (its packed rows stay 12 floats apart): computing 12 rows for the 8 of a 128-row
// product's last panel made it cost a whole panel, 3 % of every product of 128 rows.
// kPrefetch: also one line of `next` (row stride next_ld) every 2^every_log2 steps; kPackB: B's
// rows also written to `panel`, packed (MicroStreamKernel).
template <int MR, int NV, bool kPackedA, bool kEdge, bool kPrefetch = false, bool kPackB = false>
__attribute__((target("avx512f,fma"), always_inline)) inline void micro_avx512_t(
    int64_t kc, const float* a, int64_t lda, const float* bp, int64_t ldb, float* c, int64_t ldc,
    int64_t mr, int64_t nr, const TileInput& in, const float* next = nullptr, int64_t next_ld = 0,
    int every_log2 = 0, float* panel = nullptr) {
  static_assert(MR == kAvxMR || kPackedA, "A is read in place for full panels only");
  // Every loop over the tile's rows is unrolled: left as loops, they kept the accumulators in
  // an array on the stack around the k loop (24 stores and 24 loads a tile; 4 % of the batch of
  // 16 128×64 · 64×128 products).
  __mmask16 mask[2];
  mask[0] = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
  mask[1] = nr >= 32 ? __mmask16(0xFFFF) : nr > 16 ? __mmask16((1u << (nr - 16)) - 1) : 0;
  // The tile `add` is read and C written after the loop: start bringing them in now.
  const float* add = in.add;
  int64_t ld_add = in.ld_add;
  __m512 start[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v)
    start[v] = in.bias ? _mm512_maskz_loadu_ps(mask[v], in.bias + 16 * v) : _mm512_setzero_ps();
  __m512 acc[MR][NV];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      acc[r][v] = start[v];
      _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16 * v), _MM_HINT_T0);
      if (add && add != c)
        _mm_prefetch(reinterpret_cast<const char*>(add + r * ld_add + 16 * v), _MM_HINT_T0);
    }
  }
  // A in place: four base pointers (rows 0, 3, 6, 9) and the row stride, so that every row is
  // base + stride × {0, 1, 2} in the addressing mode; twelve row pointers would not fit in the
  // general registers (spilled, they cost a move on an FMA port per row). Full panels only
  // (mr == 12): micro_avx512 packs a panel of fewer rows first.
  const float* a0 = a;
  const float* a3 = a + 3 * lda;
  const float* a6 = a + 6 * lda;
  const float* a9 = a + 9 * lda;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    if (kPrefetch && (p & ((int64_t(1) << every_log2) - 1)) == 0) {
      int64_t line = p >> every_log2;
      _mm_prefetch(reinterpret_cast<const char*>(next + (line >> 1) * next_ld + (line & 1) * 16),
                   _MM_HINT_T0);
    }
    __m512 b[NV];
    for (int v = 0; v < NV; ++v)
      b[v] = kEdge ? _mm512_maskz_loadu_ps(mask[v], bp + p * ldb + 16 * v)
                   : _mm512_loadu_ps(bp + p * ldb + 16 * v);
    if (kPackB)
      for (int v = 0; v < NV; ++v) _mm512_storeu_ps(panel + p * kAvxNR + 16 * v, b[v]);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const float* base = r < 3 ? a0 : r < 6 ? a3 : r < 9 ? a6 : a9;
      __m512 x = _mm512_set1_ps(kPackedA ? a[p * kAvxMR + r] : base[(r % 3) * lda + p]);
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(x, b[v], acc[r][v]);
    }
  }
  // Edge tiles store through masks: columns past nr are never written, rows past mr skipped.
  const float* scale = in.scale;
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    if (r >= mr) break;
    float* out = c + r * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 x = acc[r][v];
      if (add) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask[v], add + r * ld_add + 16 * v));
      if (scale) x = _mm512_mul_ps(x, _mm512_set1_ps(*scale));
      _mm512_mask_storeu_ps(out + 16 * v, mask[v], x);
    }
  }
}

__attribute__((target("avx512f,fma"))) void micro_avx512(int64_t kc, const float* a, int64_t lda,
                                                         const float* b, int64_t ldb, float* c,
                                                         int64_t ldc, int64_t mr, int64_t nr,
                                                         const TileInput& in) {
  alignas(64) float edge_rows[kAvxMR * kKC];  // kc ≤ kKC
  if (lda != 0 && mr < kAvxMR) {  // the in-place form reads 12 rows: pack the few there are
    pack_a_block(a, lda, mr, kc, kAvxMR, edge_rows);
    a = edge_rows;
    lda = 0;
  }
  bool whole = ldb == 0;  // a packed panel: every load in bounds
  if (whole) ldb = kAvxNR;
#define RAXC_MICRO(MR, NV, PACKED, EDGE) \
  return micro_avx512_t<MR, NV, PACKED, EDGE>(kc, a, lda, b, ldb, c, ldc, mr, nr, in)
#define RAXC_MICRO_PACKED(MR)                                           \
  {                                                                     \
    if (nr == 32 || (whole && nr > 16)) RAXC_MICRO(MR, 2, true, false); \
    if (nr > 16) RAXC_MICRO(MR, 2, true, true);                         \
    if (nr == 16 || whole) RAXC_MICRO(MR, 1, true, false);              \
    RAXC_MICRO(MR, 1, true, true);                                      \
  }
  if (lda == 0) {
    if (mr <= 4) RAXC_MICRO_PACKED(4);
    if (mr <= 8) RAXC_MICRO_PACKED(8);
    RAXC_MICRO_PACKED(12);
  }
  if (nr == 32 || (whole && nr > 16)) RAXC_MICRO(12, 2, false, false);
  if (nr > 16) RAXC_MICRO(12, 2, false, true);
  if (nr == 16 || whole) RAXC_MICRO(12, 1, false, false);
  RAXC_MICRO(12, 1, false, true);
#undef RAXC_MICRO_PACKED
#undef RAXC_MICRO
}

__attribute__((target("avx512f"))) void pack_b_avx512(const float* b, int64_t ldb, int64_t kc,
                                                      int64_t nc, float* out);

__attribute__((target("avx512f,fma"))) void micro_stream_avx512(
    int64_t kc, const float* a, float* panel, const float* src, int64_t ld, float* c, int64_t ldc,
    int64_t mr, int64_t nr, const TileInput& in, const float* next, int every_log2) {
  bool full = mr == kAvxMR && nr == kAvxNR;
  if (full && src && next)
    return micro_avx512_t<kAvxMR, 2, true, false, true, true>(kc, a, 0, src, ld, c, ldc, mr, nr, in,
                                                              next, ld, every_log2, panel);
  if (full && src)
    return micro_avx512_t<kAvxMR, 2, true, false, false, true>(kc, a, 0, src, ld, c, ldc, mr, nr,
                                                               in, nullptr, 0, 0, panel);
  if (full && next)
    return micro_avx512_t<kAvxMR, 2, true, false, true>(kc, a, 0, panel, kAvxNR, c, ldc, mr, nr, in,
                                                        next, ld, every_log2);
  // A short tile (a last panel of A or of B): the panel packed and the prefetches issued
  // first, then the usual kernel.
  if (src) pack_b_avx512(src, ld, kc, nr, panel);
  for (int64_t line = 0; next && line < (kc >> every_log2); ++line)
    _mm_prefetch(reinterpret_cast<const char*>(next + (line >> 1) * ld + (line & 1) * 16),
                 _MM_HINT_T0);
  micro_avx512(kc, a, 0, panel, 0, c, ldc, mr, nr, in);
}

// c[j0, j1) += a0·b0 + a1·b1 + a2·b2 + a3·b3 over one row of C, 16 columns at a time: whole
// vectors unmasked (masked loads cost more on Zen 5), the rest through a mask; the loops over
// the rows unrolled (left as loops, they read the broadcasts from the stack: a GEMV on 2
// threads 25 % slower). `ahead`: also
// prefetch the four rows of B that many floats ahead (the first of the rows of A only: the
// others find B in L1).
template <int kRows>
__attribute__((target("avx512f,fma"), always_inline)) inline void small_row_avx512(
    float* c, const float* const (&b)[4], const __m512 (&a)[4], int64_t j0, int64_t j1,
    int64_t ahead) {
  int64_t j = j0;
  for (; j + 16 <= j1; j += 16) {
    if (ahead)
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r)
        _mm_prefetch(reinterpret_cast<const char*>(b[r] + j + ahead), _MM_HINT_T0);
    __m512 x = _mm512_loadu_ps(c + j);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) x = _mm512_fmadd_ps(a[r], _mm512_loadu_ps(b[r] + j), x);
    _mm512_storeu_ps(c + j, x);
  }
  if (j == j1) return;
  __mmask16 m = __mmask16((1u << (j1 - j)) - 1);
  __m512 x = _mm512_maskz_loadu_ps(m, c + j);
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) x = _mm512_fmadd_ps(a[r], _mm512_maskz_loadu_ps(m, b[r] + j), x);
  _mm512_mask_storeu_ps(c + j, m, x);
}

// Up to kSmallM rows: B is streamed once per block of columns (4096 for up to 2 rows of A, 16
// KiB of C a row; 2048 for more), four rows of B per step so C is loaded and stored once per
// four multiply-adds, each of the four streams of B prefetched 1 KiB ahead. GEMV 1×4096·4096×
// 4096 (B huge-page backed, best of 80 in one process) read B at 31–33 GB/s with blocks of
// 2048, masked loads and no prefetch, and reads it at 41–44 GB/s now on one thread; on two
// (units of 512 columns, no prefetch) 51–55 → 59–66 GB/s. One core reads a plain stream at
// 46–58 GB/s on this VM.
__attribute__((target("avx512f,fma"))) void small_avx512(const Gemm& g, int64_t j0, int64_t j1) {
  constexpr int64_t kAhead = 256;  // floats
  int64_t block = g.m <= 2 ? 4096 : 2048;
  // Not for a narrow range of columns (the threads' units of a GEMV on 2 threads, 512 columns):
  // prefetching past it fetched the other thread's columns, 2.48 against 1.52 ms.
  bool prefetch = j1 - j0 >= 1024;
  for (int64_t jb = j0; jb < j1; jb += block) {
    int64_t je = std::min(j1, jb + block);
    for (int64_t i = 0; i < g.m; ++i) std::memset(g.c + i * g.ldc + jb, 0, (je - jb) * 4);
    int64_t p = 0;
    for (; p + 4 <= g.k; p += 4) {
      const float* b[4] = {g.b + p * g.ldb, g.b + (p + 1) * g.ldb, g.b + (p + 2) * g.ldb,
                           g.b + (p + 3) * g.ldb};
      for (int64_t i = 0; i < g.m; ++i) {
        const float* a = g.a + i * g.lda + p;
        const __m512 x[4] = {_mm512_set1_ps(a[0]), _mm512_set1_ps(a[1]), _mm512_set1_ps(a[2]),
                             _mm512_set1_ps(a[3])};
        small_row_avx512<4>(g.c + i * g.ldc, b, x, jb, je, i == 0 && prefetch ? kAhead : 0);
      }
    }
    for (; p < g.k; ++p) {
      const float* b[4] = {g.b + p * g.ldb, nullptr, nullptr, nullptr};
      for (int64_t i = 0; i < g.m; ++i) {
        const __m512 x[4] = {_mm512_set1_ps(g.a[i * g.lda + p]), _mm512_setzero_ps(),
                             _mm512_setzero_ps(), _mm512_setzero_ps()};
        small_row_avx512<1>(g.c + i * g.ldc, b, x, jb, je, 0);
      }
    }
  }
}
#endif

#ifdef RAXC_MATMUL_X86
// gelu_scalar on 16 lanes (the same operations in the same order).
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 gelu_avx512(__m512 x) {
  __m512 c = _mm512_mul_ps(x, _mm512_set1_ps(kSqrtHalf));
  c = _mm512_min_ps(_mm512_max_ps(c, _mm512_set1_ps(-4.0f)), _mm512_set1_ps(4.0f));
  __m512 t = _mm512_mul_ps(c, c);
  __m512 p = _mm512_set1_ps(kErfP[0]), q = _mm512_set1_ps(kErfQ[0]);
  for (size_t i = 1; i < std::size(kErfP); ++i) p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(kErfP[i]));
  for (size_t i = 1; i < std::size(kErfQ); ++i) q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(kErfQ[i]));
  __m512 erf = _mm512_div_ps(_mm512_mul_ps(c, p), q);
  __m512 half = _mm512_set1_ps(0.5f);
  return _mm512_mul_ps(x, _mm512_add_ps(half, _mm512_mul_ps(erf, half)));
}

// A vector's lanes: all 16, loaded unmasked (masked loads cost more on Zen 5: with them the bias
// epilogue was 2 % of the transformer block on one thread), or those of the mask.
template <bool kWhole>
__attribute__((target("avx512f"), always_inline)) inline __m512 load_lanes(const float* p,
                                                                           __mmask16 m) {
  return kWhole ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
}

// One vector of C through g's epilogue: bias and res point at its columns (null: none).
template <Activation kAct, bool kWhole>
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 epilogue_vector(
    const Epilogue& e, __m512 x, const float* bias, const float* res, __mmask16 m) {
  if (e.scale) x = _mm512_mul_ps(x, _mm512_set1_ps(*e.scale));
  if (bias) x = _mm512_add_ps(x, load_lanes<kWhole>(bias, m));
  if constexpr (kAct == Activation::kGelu) x = gelu_avx512(x);
  // max(0, x) returns its second operand when either is NaN: a NaN stays NaN, as in the
  // portable epilogue and the generated max (max(x, 0) gave 0).
  if constexpr (kAct == Activation::kRelu) x = _mm512_max_ps(_mm512_setzero_ps(), x);
  if (res) x = _mm512_add_ps(x, load_lanes<kWhole>(res, m));
  return x;
}

template <Activation kAct>
__attribute__((target("avx512f,fma"))) void epilogue_avx512_t(const Gemm& g, int64_t i0,
                                                              int64_t rows, int64_t j0,
                                                              int64_t cols) {
  const Epilogue& e = g.epi;
  int64_t whole = cols / 16 * 16;
  __mmask16 rest = __mmask16((1u << (cols - whole)) - 1);
  for (int64_t i = i0; i < i0 + rows; ++i) {
    float* c = g.c + i * g.ldc + j0;
    const float* res = e.residual ? e.residual + i * g.ldc + j0 : nullptr;
    const float* bias = e.bias ? e.bias + j0 : nullptr;
    for (int64_t j = 0; j < whole; j += 16)
      _mm512_storeu_ps(
          c + j, epilogue_vector<kAct, true>(e, _mm512_loadu_ps(c + j), bias ? bias + j : nullptr,
                                             res ? res + j : nullptr, 0));
    if (rest)
      _mm512_mask_storeu_ps(c + whole, rest,
                            epilogue_vector<kAct, false>(e, _mm512_maskz_loadu_ps(rest, c + whole),
                                                         bias ? bias + whole : nullptr,
                                                         res ? res + whole : nullptr, rest));
  }
}

void epilogue_avx512(const Gemm& g, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  switch (g.epi.act) {
    case Activation::kGelu: return epilogue_avx512_t<Activation::kGelu>(g, i0, rows, j0, cols);
    case Activation::kRelu: return epilogue_avx512_t<Activation::kRelu>(g, i0, rows, j0, cols);
    case Activation::kNone: return epilogue_avx512_t<Activation::kNone>(g, i0, rows, j0, cols);
  }
}
#endif

const Kernel& kernel() {
  static const Kernel chosen = [] {
#ifdef RAXC_MATMUL_X86
    if (!std::getenv("RAXC_MATMUL_GENERIC") && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("fma"))
      return Kernel{kAvxMR,       kAvxNR,          micro_avx512,
                    small_avx512, epilogue_avx512, micro_stream_avx512};
#endif
    return Kernel{kGenericMR, kGenericNR, micro_generic, small_generic, epilogue_generic, nullptr};
  }();
  return chosen;
}

// ---------------------------------------------------------------------------- packing

// Per-thread packing buffers, grown on demand and kept for the thread's life (workers are
// long-lived); freed when the thread ends.
float* scratch(int which, int64_t floats) {
  struct Buffer {
    float* data = nullptr;
    int64_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffers[2];  // packed B, packed A (a few hundred KiB each)
  Buffer& buf = buffers[which];
  if (buf.size < floats) {
    std::free(buf.data);
    size_t bytes = (static_cast<size_t>(floats) * 4 + 4095) & ~size_t(4095);
    buf.data = static_cast<float*>(std::aligned_alloc(4096, bytes));
    if (!buf.data) throw_error("RX5026", {"(packing buffer)", "float32"});
    buf.size = floats;
  }
  return buf.data;
}

// ---------------------------------------------------------------------------- AVX-512 packing
//
// Packing with scalar copies cost 6–9 % of a product's time on one thread (A: a strided gather
// of 12 rows, ~2.4 cycles per float; B: a memcpy call per 128 bytes), as much as the
// micro-kernel loses to everything else. These move 16 floats per instruction.
#ifdef RAXC_MATMUL_X86
// r[t] holds 16 consecutive floats (columns q = 0..15) of row t; column q's first kCount rows go
// to out + kStride·q. A 16×16 transpose in registers: rows interleaved in pairs, then pairs of
// pairs, then 128-bit lanes exchanged twice. Every loop here and in pack_a_avx512 is unrolled:
// left as loops, GCC kept r, t and u in arrays on the stack, each stage stored and loaded again,
// and packing A ran at 15–26 GB/s (51–56 unrolled, A in L2; 35–41 from L3).
template <int kStride, int kCount>
__attribute__((target("avx512f"), always_inline)) inline void transpose_store_16(const __m512 r[16],
                                                                                 float* out) {
  __m512 t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4i + c], 128-bit lane L: column 4L + c of rows 4i .. 4i + 3.
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    __m512d a0 = _mm512_castps_pd(t[4 * i]), a1 = _mm512_castps_pd(t[4 * i + 1]);
    __m512d a2 = _mm512_castps_pd(t[4 * i + 2]), a3 = _mm512_castps_pd(t[4 * i + 3]);
    u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  constexpr __mmask16 kRows = __mmask16((1u << kCount) - 1);
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);  // lanes 0, 2 of each
    __m512 x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);  // lanes 1, 3
    __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    __m512 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    _mm512_mask_storeu_ps(out + kStride * c, kRows, _mm512_shuffle_f32x4(x0, y0, 0x88));
    _mm512_mask_storeu_ps(out + kStride * (4 + c), kRows, _mm512_shuffle_f32x4(x1, y1, 0x88));
    _mm512_mask_storeu_ps(out + kStride * (8 + c), kRows, _mm512_shuffle_f32x4(x0, y0, 0xDD));
    _mm512_mask_storeu_ps(out + kStride * (12 + c), kRows, _mm512_shuffle_f32x4(x1, y1, 0xDD));
  }
}

// A panel of 12 rows of A: rows 12–15 of r are zero and not stored.
__attribute__((target("avx512f"), always_inline)) inline void transpose_store_12x16(
    const __m512 r[16], float* out) {
  transpose_store_16<kAvxMR, kAvxMR>(r, out);
}

// pack_a_block for the AVX-512 kernel's 12-row panels: 16 columns of a panel at a time.
__attribute__((target("avx512f"))) void pack_a_avx512(const float* a, int64_t lda, int64_t mc,
                                                      int64_t kc, float* out) {
  for (int64_t i = 0; i < mc; i += kAvxMR) {
    int64_t h = std::min(kAvxMR, mc - i);
    const float* rows = a + i * lda;
    float* dst = out + i * kc;
    int64_t p = 0;
    for (; p + 16 <= kc; p += 16, dst += 16 * kAvxMR) {
      __m512 r[16];
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t)
        r[t] = t < h ? _mm512_loadu_ps(rows + t * lda + p) : _mm512_setzero_ps();
      transpose_store_12x16(r, dst);
    }
    for (; p < kc; ++p, dst += kAvxMR)
      for (int64_t t = 0; t < kAvxMR; ++t) dst[t] = t < h ? rows[t * lda + p] : 0.f;
  }
}

// pack_b for the AVX-512 kernel's 32-column panels: a panel row is two vectors. B is read in
// groups of 8 rows, each group panel by panel: 8 sequential streams through B's rows (one run
// of a page each, which the hardware prefetcher follows), and 1 KiB of one panel written at a
// time. Panel by panel over all kc rows (as before) read 128 bytes per row, every row in
// another page when B's rows are long (12-16 KiB for the transformer's and the MLP's weights),
// a memory latency each; row by row (one row to all 32 panels) wrote 32 places 32 KiB apart,
// which fall in one set of L1. On the transformer's 128 × 768 · 768 × 3072 packing cost 21 %
// of the micro-kernel's time, 17 % in 8-row groups (4-32 rows measured alike).
__attribute__((target("avx512f"))) void pack_b_avx512(const float* b, int64_t ldb, int64_t kc,
                                                      int64_t nc, float* out) {
  constexpr int64_t kRows = 8;
  int64_t full = nc / kAvxNR * kAvxNR, w = nc - full;
  __mmask16 m0 = w >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << w) - 1);
  __mmask16 m1 = w > 16 ? __mmask16((1u << (w - 16)) - 1) : __mmask16(0);
  for (int64_t p0 = 0; p0 < kc; p0 += kRows) {
    int64_t p1 = std::min(kc, p0 + kRows);
    for (int64_t j = 0; j < full; j += kAvxNR) {
      float* dst = out + j * kc + p0 * kAvxNR;
      for (int64_t p = p0; p < p1; ++p, dst += kAvxNR) {
        const float* src = b + p * ldb + j;
        _mm512_storeu_ps(dst, _mm512_loadu_ps(src));
        _mm512_storeu_ps(dst + 16, _mm512_loadu_ps(src + 16));
      }
    }
    if (w == 0) continue;
    float* dst = out + full * kc + p0 * kAvxNR;  // the last panel, zero padded
    for (int64_t p = p0; p < p1; ++p, dst += kAvxNR) {
      const float* src = b + p * ldb + full;
      _mm512_storeu_ps(dst, _mm512_maskz_loadu_ps(m0, src));
      _mm512_storeu_ps(dst + 16, _mm512_maskz_loadu_ps(m1, src + 16));
    }
  }
}

// pack_bt for the AVX-512 kernel's 32-column panels, from a transposed B (R.linear's weight,
// whose rows are the panels' columns): 16 of its rows × 16 steps of the reduction transposed in
// registers at a time, each step's 16 columns stored as one vector. Copied a float at a time
// (each store 128 bytes from the one before), R.linear's 256×1024 · (4096×1024)ᵀ took 1.5 times
// as long as the same product with B given plain, on one thread.
__attribute__((target("avx512f"))) void pack_bt_avx512(const float* b, int64_t ldb, int64_t kc,
                                                       int64_t nc, float* out) {
  for (int64_t j = 0; j < nc; j += kAvxNR) {
    float* panel = out + j * kc;
    for (int64_t half = 0; half < kAvxNR; half += 16) {
      // The weight's rows this half of the panel holds (columns past nc are zero).
      int64_t rows = std::clamp<int64_t>(nc - j - half, 0, 16);
      const float* src = b + (j + half) * ldb;
      int64_t p = 0;
      __m512 r[16];
      for (; p + 16 <= kc; p += 16) {
#pragma GCC unroll 16
        for (int t = 0; t < 16; ++t)
          r[t] = t < rows ? _mm512_loadu_ps(src + t * ldb + p) : _mm512_setzero_ps();
        transpose_store_16<kAvxNR, 16>(r, panel + p * kAvxNR + half);
      }
      if (p == kc) continue;
      // The last steps: transposed into lines of 16, of which those inside kc are copied.
      __mmask16 m = __mmask16((1u << (kc - p)) - 1);
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t)
        r[t] = t < rows ? _mm512_maskz_loadu_ps(m, src + t * ldb + p) : _mm512_setzero_ps();
      alignas(64) float lines[16 * 16];
      transpose_store_16<16, 16>(r, lines);
      for (int64_t q = 0; q < kc - p; ++q)
        _mm512_storeu_ps(panel + (p + q) * kAvxNR + half, _mm512_load_ps(lines + 16 * q));
    }
  }
}
#endif

// B[kc×nc] → panels of nr columns, each k-major (nr floats per k), the last padded with zeros.
void pack_b(const float* b, int64_t ldb, int64_t kc, int64_t nc, int64_t nr, float* out) {
#ifdef RAXC_MATMUL_X86
  if (nr == kAvxNR) return pack_b_avx512(b, ldb, kc, nc, out);  // only the AVX-512 kernel's NR
#endif
  for (int64_t j = 0; j < nc; j += nr) {
    int64_t w = std::min(nr, nc - j);
    float* dst = out + j * kc;
    for (int64_t p = 0; p < kc; ++p, dst += nr) {
      const float* src = b + p * ldb + j;
      if (w == nr) {
        std::memcpy(dst, src, nr * sizeof(float));
      } else {
        for (int64_t t = 0; t < w; ++t) dst[t] = src[t];
        for (int64_t t = w; t < nr; ++t) dst[t] = 0.f;
      }
    }
  }
}

// The same from a transposed B (element (p, j) at b[j * ldb + p]): each of its rows is one
// column of the panel.
void pack_bt(const float* b, int64_t ldb, int64_t kc, int64_t nc, int64_t nr, float* out) {
#ifdef RAXC_MATMUL_X86
  if (nr == kAvxNR) return pack_bt_avx512(b, ldb, kc, nc, out);  // only the AVX-512 kernel's NR
#endif
  for (int64_t j = 0; j < nc; j += nr) {
    int64_t w = std::min(nr, nc - j);
    float* dst = out + j * kc;
    for (int64_t t = 0; t < w; ++t) {
      const float* src = b + (j + t) * ldb;
      for (int64_t p = 0; p < kc; ++p) dst[p * nr + t] = src[p];
    }
    if (w < nr)
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t t = w; t < nr; ++t) dst[p * nr + t] = 0.f;
  }
}

// Rows [pc, pc + kc) × columns [jc, jc + nc) of g's B as panels.
void pack_b_block(const Gemm& g, int64_t pc, int64_t jc, int64_t kc, int64_t nc, int64_t nr,
                  float* out) {
  if (g.bt)
    pack_bt(g.b + jc * g.ldb + pc, g.ldb, kc, nc, nr, out);
  else
    pack_b(g.b + pc * g.ldb + jc, g.ldb, kc, nc, nr, out);
}

// A[mc×kc] → panels of mr rows, each k-major (mr floats per k), the last padded with zeros.
void pack_a_block(const float* a, int64_t lda, int64_t mc, int64_t kc, int64_t mr, float* out) {
#ifdef RAXC_MATMUL_X86
  if (mr == kAvxMR) return pack_a_avx512(a, lda, mc, kc, out);  // only the AVX-512 kernel's MR
#endif
  for (int64_t i = 0; i < mc; i += mr) {
    int64_t h = std::min(mr, mc - i);
    float* dst = out + i * kc;
    for (int64_t p = 0; p < kc; ++p, dst += mr) {
      int64_t t = 0;
      for (; t < h; ++t) dst[t] = a[(i + t) * lda + p];
      for (; t < mr; ++t) dst[t] = 0.f;
    }
  }
}

// Blocks of equal size (rounded up to `grain`) rather than full blocks and a thin rest: a K of
// 1025 is 3 × 342, not 2 × 512 + 1 (a whole extra pass over C for one step).
int64_t even_block(int64_t extent, int64_t block, int64_t grain) {
  int64_t parts = std::max<int64_t>(1, (extent + block - 1) / block);
  int64_t size = (extent + parts - 1) / parts;
  return std::max(grain, (size + grain - 1) / grain * grain);
}

// How block_product takes A's rows: read in place, packed by it, or packed already.
enum class AMode { kInPlace, kPack, kPacked };

// The rows [ic, ic + mc) × [pc, pc + kc) of A as the micro-kernel takes them: all packed into
// `ap` (kc × mc floats; by the caller when kPacked), or read in place with only a last partial
// panel packed (into `ap`, kc × MR floats) once, rather than by every micro-kernel call that
// meets it.
struct APanels {
  const float* a;
  int64_t lda, kc, full;
  float* ap;
  bool packed;
  APanels(const Kernel& k, const float* a, int64_t lda, int64_t mc, int64_t kc, float* ap,
          AMode mode)
      : a(a),
        lda(lda),
        kc(kc),
        full(mode != AMode::kInPlace ? 0 : mc / k.mr * k.mr),
        ap(ap),
        packed(mode != AMode::kInPlace) {
    if (mode == AMode::kPack)
      pack_a_block(a, lda, mc, kc, k.mr, ap);
    else if (mode == AMode::kInPlace && full < mc)
      pack_a_block(a + full * lda, lda, mc - full, kc, k.mr, ap);
  }
  // The panel starting at row ir: its pointer and row stride (0: packed).
  const float* at(int64_t ir) const {
    return packed ? ap + ir * kc : ir < full ? a + ir * lda : ap;
  }
  int64_t stride(int64_t ir) const { return packed || ir >= full ? 0 : lda; }
};

// When the tiles pack B (block_product's `stream`), the source of the next panel (kc rows of 32
// floats, two lines each, every row in another page when B's rows are long) is brought into the
// cache by the current panel's first tiles, a few rows each, one line every 2^every_log2 steps of
// k. Packing a block of B from memory before its tiles was 8–10 % of the MLP's time on one
// thread (a weight is read once per call, and each of its rows is a memory latency); with these
// prefetches and a separate packing pass, 4–5 % (every 2 and 4 steps alike; every 8, too few
// tiles to cover a panel, 7 %); with the first tile packing the panel as it reads it, the packing
// is gone from the profile. With the weights cold and memory busy, 256×1024 · 1024×4096 went from
// 190 to 200 GFLOP/s and 128×3072 · 3072×768 from 175 to 190 (on an idle machine both within 3 %).
struct PanelPrefetch {
  int every_log2 = 0;
  int64_t rows_per_tile = 0;  // 0: no prefetching
  PanelPrefetch(const Kernel& kr, bool stream, int64_t mc, int64_t kc) {
    if (!stream) return;
    // Every 2^e steps with 2^(e+1) tiles (a panel is 2·kc lines), up to every 4 steps.
    int64_t tiles = (mc + kr.mr - 1) / kr.mr;
    while (every_log2 < 2 && (int64_t(4) << every_log2) <= tiles) ++every_log2;
    rows_per_tile = std::max<int64_t>(1, (kc >> every_log2) / 2);
  }
  // The rows of B that tile t (of a panel's tiles, in order) prefetches, from column `column`
  // on; null when it has none.
  const float* rows(const Gemm& g, int64_t t, int64_t pc, int64_t kc, int64_t column) const {
    if (rows_per_tile == 0 || t * rows_per_tile >= kc) return nullptr;
    return g.b + (pc + t * rows_per_tile) * g.ldb + column;
  }
};

// Rows [ic, ic + mc) × columns [jc, jc + nc) of C (+)= A's rows over [pc, pc + kc) times that
// block of B: packed in `bp` (panels of NR columns, kc floats deep; panel jr at bp + jr · kc) or,
// when bp is null, read in place. With `pack_b` the panels are packed into `bp` here, each just
// before its tiles (PanelPrefetch). A's rows go through `ap` (APanels).
void block_product(const Kernel& kr, const Gemm& g, int64_t ic, int64_t mc, int64_t jc, int64_t nc,
                   int64_t pc, int64_t kc, float* bp, bool pack_b, float* ap, AMode a_mode) {
  APanels a(kr, g.a + ic * g.lda + pc, g.lda, mc, kc, ap, a_mode);
  // The tiles pack the panels themselves: the first tile of a panel as it reads it from B.
  bool stream = pack_b && a.packed && !g.bt && kr.micro_stream;
  PanelPrefetch prefetch(kr, stream, mc, kc);
  // The last block of the reduction completes each tile: its epilogue follows at once, unless
  // the first block took it in or the last applies it (a scale alone). Folding the bias and
  // residual this way took the epilogue pass, 1.7 % of the transformer block's time on one
  // thread, out of its profile; the scale of attention's scores, 0.7 % more.
  bool last = pc + kc == g.k;
  bool epilogue = last && g.epi.any() && !g.epi.folded() && !g.epi.scale_only();
  for (int64_t jr = 0; jr < nc; jr += kr.nr) {
    int64_t nr = std::min(kr.nr, nc - jr);
    float* panel = bp ? bp + jr * kc : nullptr;
    const float* src = g.b + pc * g.ldb + jc + jr;  // unless g.bt
    if (pack_b && !stream) pack_b_block(g, pc, jc + jr, kc, nr, kr.nr, panel);
    for (int64_t ir = 0; ir < mc; ir += kr.mr) {
      int64_t mr = std::min(kr.mr, mc - ir);
      float* c = g.c + (ic + ir) * g.ldc + jc + jr;
      TileInput in;
      if (pc > 0)
        in = {c, g.ldc, nullptr};
      else if (g.epi.folded())
        in = {g.epi.residual ? g.epi.residual + (ic + ir) * g.ldc + jc + jr : nullptr, g.ldc,
              g.epi.bias ? g.epi.bias + jc + jr : nullptr};
      if (last && g.epi.scale_only()) in.scale = g.epi.scale;
      const float* next =
          jr + nr < nc ? prefetch.rows(g, ir / kr.mr, pc, kc, jc + jr + kr.nr) : nullptr;
      if (stream && (ir == 0 || next))
        kr.micro_stream(kc, a.at(ir), panel, ir == 0 ? src : nullptr, g.ldb, c, g.ldc, mr, nr, in,
                        next, prefetch.every_log2);
      else
        kr.micro(kc, a.at(ir), a.stride(ir), panel ? panel : src, panel ? 0 : g.ldb, c, g.ldc, mr,
                 nr, in);
      if (epilogue) kr.epilogue(g, ic + ir, mr, jc + jr, nr);
    }
  }
}

// Columns [j0, j1) of a product of at most kSmallM rows (unpacked), then their epilogue.
void small_product(const Kernel& kr, const Gemm& g, int64_t j0, int64_t j1) {
  kr.small(g, j0, j1);
  if (g.epi.any()) kr.epilogue(g, 0, g.m, j0, j1 - j0);
}

// Rows [i0, i1) × columns [j0, j1) of one product, on this thread.
void gemm_block(const Kernel& kr, const Gemm& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  if (i0 >= i1 || j0 >= j1) return;
  if (g.k == 0) {
    for (int64_t i = i0; i < i1; ++i) std::memset(g.c + i * g.ldc + j0, 0, (j1 - j0) * 4);
    if (g.epi.any()) kr.epilogue(g, i0, i1 - i0, j0, j1 - j0);
    return;
  }
  if (i1 - i0 <= kSmallM && i0 == 0 && i1 == g.m && b_in_place_ok(g))
    return small_product(kr, g, j0, j1);
  int64_t kcb = even_block(g.k, kKC, 1);
  int64_t mcb = even_block(i1 - i0, kMC, kr.mr);
  int64_t ncb = even_block(j1 - j0, kNC, kr.nr);
  // A is packed when each of its panels meets more than 8 panels of B; below that the packing
  // costs more than the contiguous reads save, and the micro-kernel reads A in place.
  bool pack = j1 - j0 > 8 * kr.nr;
  // A small B (up to 64 KiB, the batched products of attention) is read in place: copying it
  // would cost a good part of the product, and its rows are too few to conflict in the cache.
  // Not a view's rows far apart (v read from its projection, 768 or 2304 floats a row: every
  // row on the same few cache sets).
  bool pack_b = !b_in_place_ok(g) || g.ldb != g.n || g.k * (j1 - j0) > 16 * 1024;
  float* bp = pack_b ? scratch(0, kcb * ncb) : nullptr;
  // Up to 256 rows of A for a block of the reduction all packed (264 rows of panels × KC = 512:
  // 528 KiB) and B of several blocks of columns: A is packed once per block of the reduction,
  // pc outside jc, rather than once per block of B's columns (four times for the MLP's 256 ×
  // 1024 · 1024 × 4096, 4 % of its time). A bound in floats (128 Ki) left M = 256 out once KC
  // went from 256 to 512: its panels round it up to 264 rows.
  int64_t rows = (i1 - i0 + kr.mr - 1) / kr.mr * kr.mr;
  if (pack && i1 - i0 <= kAllPackedRows && j1 - j0 > ncb) {
    float* ap = scratch(1, kcb * rows);
    for (int64_t pc = 0; pc < g.k; pc += kcb) {
      int64_t kc = std::min(kcb, g.k - pc);
      pack_a_block(g.a + i0 * g.lda + pc, g.lda, i1 - i0, kc, kr.mr, ap);
      for (int64_t jc = j0; jc < j1; jc += ncb) {
        int64_t nc = std::min(ncb, j1 - jc);
        for (int64_t ic = i0; ic < i1; ic += mcb)
          block_product(kr, g, ic, std::min(mcb, i1 - ic), jc, nc, pc, kc, bp, pack_b && ic == i0,
                        ap + (ic - i0) * kc, AMode::kPacked);
      }
    }
    return;
  }
  float* ap = scratch(1, kcb * (pack ? mcb : kr.mr));
  for (int64_t jc = j0; jc < j1; jc += ncb) {
    int64_t nc = std::min(ncb, j1 - jc);
    for (int64_t pc = 0; pc < g.k; pc += kcb) {
      int64_t kc = std::min(kcb, g.k - pc);
      for (int64_t ic = i0; ic < i1; ic += mcb)
        block_product(kr, g, ic, std::min(mcb, i1 - ic), jc, nc, pc, kc, bp, pack_b && ic == i0, ap,
                      pack ? AMode::kPack : AMode::kInPlace);
    }
  }
}

// ---------------------------------------------------------------------------- parallel work
//
// Threads claim units of work from an atomic counter until none is left: runs of whole products
// of a batch, parts of the reduction or column groups of a product of few rows, or one part of a
// large product per thread. A
// thread the pool wakes late finds its part already taken by one that is done with its own.
//
// A large product is split once, into one part per thread, each the one-thread gemm_block on its
// own rows of C or its own columns, packing its own copy of B as its tiles read it. Columns when
// A has fewer rows than B has columns (each thread then packs only its half of B), rows
// otherwise (A is the larger operand, and each thread packs all of B once). This replaced steps
// in which the threads packed each 1 MiB block of B together into a shared buffer and then
// multiplied tiles of rows by it, each tile waiting for its block's packing and for the tile of
// the block before. Once the tiles packed B as they read it, the shared packing was the slower
// one on every shape measured (2 threads, GFLOP/s, a harness calling multiply_f32, best of 6,
// the two builds' processes alternating on an idle machine): 1024³ 338 → 386 (rows), 2048³
// 331 → 366 (rows), 1000³ 340 → 374 (rows), 777×1025 · 1025×513 322 → 374 (rows), 256×1024 ·
// 1024×4096 282 → 370 (columns), 128×768 · 768×3072 241 → 384 (columns). The steps' waits also
// stalled on a descheduled thread's tile; a fixed part only loses the time it is away.

// Runs units from the job's counter on the pool's threads.
struct Job {
  enum Phase { kBatches, kSmallColumns, kSmallDepth, kRows, kColumns };
  const Kernel* kr = nullptr;
  std::vector<Gemm> gemms;  // one per batch element
  Phase phase = kBatches;
  int64_t units = 0;
  std::atomic<int64_t> next{0};
  // The product being split: kSmallColumns' columns per unit, or kRows / kColumns' parts.
  const Gemm* g = nullptr;
  int64_t columns = 0;
  float* partials = nullptr;  // kSmallDepth: the sums of parts 1.., m × n floats each

  void run(int64_t u) const {
    const Kernel& k = *kr;
    switch (phase) {
      case kBatches: {  // part u of the products, in order
        auto [first, end] = part(static_cast<int64_t>(gemms.size()), 1, u);
        for (int64_t q = first; q < end; ++q) {
          const Gemm& b = gemms[static_cast<size_t>(q)];
          gemm_block(k, b, 0, b.m, 0, b.n);
        }
        return;
      }
      case kSmallColumns:
        return small_product(k, *g, u * columns, std::min(g->n, (u + 1) * columns));
      case kSmallDepth: {  // part u of the reduction, all columns: part 0 into C
        auto [p0, p1] = part(g->k, 4, u);
        Gemm sub = *g;
        sub.a += p0;
        sub.b += p0 * g->ldb;
        sub.k = p1 - p0;
        if (u > 0) {
          sub.c = partials + (u - 1) * g->m * g->n;
          sub.ldc = g->n;
        }
        return k.small(sub, 0, g->n);
      }
      case kRows: {  // part u of A's MR-row panels, all of B's columns
        auto [i0, i1] = part(g->m, k.mr, u);
        return gemm_block(k, *g, i0, i1, 0, g->n);
      }
      case kColumns: {  // part u of B's NR-column panels, all of A's rows
        auto [j0, j1] = part(g->n, k.nr, u);
        return gemm_block(k, *g, 0, g->m, j0, j1);
      }
    }
  }

  // Part u of `units` of an extent split on whole panels of `width`: [begin, end).
  std::pair<int64_t, int64_t> part(int64_t extent, int64_t width, int64_t u) const {
    int64_t panels = (extent + width - 1) / width;
    return {std::min(extent, panels * u / units * width),
            std::min(extent, panels * (u + 1) / units * width)};
  }
};

// The pool's body: every thread claims units until none is left. Nothing may unwind through
// the pool, so the one failure possible (a packing buffer that cannot be allocated) becomes a
// status the caller turns into RX5026.
int32_t run_units(int64_t, int64_t, void* closure) {
  Job& job = *static_cast<Job*>(closure);
  try {
    for (int64_t u; (u = job.next.fetch_add(1, std::memory_order_relaxed)) < job.units;) job.run(u);
  } catch (...) {
    return 1;
  }
  return 0;
}

void run_parallel(Job& job, int threads) {
  job.next.store(0, std::memory_order_relaxed);
  if (job.units > 0 && raxc_parallel_for(0, threads, run_units, &job) != 0)
    throw_error("RX5026", {"(packing buffer)", "float32"});
}

// A product of at most kSmallM rows split over the reduction: each thread streams its own rows
// of B, whole and contiguous, into its own sums (part 0 into C), which are then added up and
// the epilogue applied. Split by columns instead, each thread read a 2 KiB piece of every row:
// GEMV 1×4096·4096×4096 on 2 threads (a harness, best of 80, alternating) read B at 42–43 GB/s
// by columns and 60–64 GB/s by rows, where one thread reads 38 GB/s.
void split_depth(Job& job, const Gemm& g, int threads) {
  std::vector<float> partials(static_cast<size_t>((threads - 1) * g.m * g.n));
  job.phase = Job::kSmallDepth;
  job.partials = partials.data();
  job.units = threads;
  run_parallel(job, threads);
  for (int t = 0; t + 1 < threads; ++t)
    for (int64_t i = 0; i < g.m; ++i) {
      float* c = g.c + i * g.ldc;
      const float* sums = job.partials + (t * g.m + i) * g.n;
      for (int64_t j = 0; j < g.n; ++j) c[j] += sums[j];
    }
  if (g.epi.any()) job.kr->epilogue(g, 0, g.m, 0, g.n);
}

// One product on `threads` threads.
void split_product(Job& job, const Gemm& g, int threads) {
  job.g = &g;
  if (g.k == 0) return gemm_block(*job.kr, g, 0, g.m, 0, g.n);
  if (g.m <= kSmallM && b_in_place_ok(g) && g.k >= kSmallDepthMin &&
      (threads - 1) * g.m * g.n <= kSmallPartialsMax)
    return split_depth(job, g, threads);
  if (g.m <= kSmallM && b_in_place_ok(g)) {
    job.phase = Job::kSmallColumns;
    job.columns = std::max<int64_t>(64, (g.n + 4 * threads - 1) / (4 * threads) + 15) / 16 * 16;
    job.units = (g.n + job.columns - 1) / job.columns;
  } else {
    job.phase = g.m < g.n ? Job::kColumns : Job::kRows;
    job.units = threads;
  }
  run_parallel(job, threads);
}

// The products of a job, on this thread or split over the pool's threads.
void run_gemms(Job& job) {
  int64_t count = static_cast<int64_t>(job.gemms.size()), macs = 0;
  for (const Gemm& g : job.gemms) macs += g.m * g.n * std::max<int64_t>(g.k, 1);
  int threads = raxc_num_threads();
  if (threads <= 1 || macs < kParallelMacs) {
    for (const Gemm& g : job.gemms) gemm_block(*job.kr, g, 0, g.m, 0, g.n);
  } else if (count >= 4 * threads || count % threads == 0) {
    // Products that divide evenly: a run of them per thread, so that each thread meets the same
    // products call after call and the rows its part of a row-parallel kernel just wrote (a
    // batch of 16 128×64 · 64×128 on 2 threads, alternating builds: 0.093–0.097 ms against
    // 0.096–0.106 with a product per unit). Else one product per unit, claimed in turn.
    job.phase = Job::kBatches;
    job.units = count % threads == 0 ? threads : count;
    run_parallel(job, threads);
  } else {
    for (const Gemm& g : job.gemms) split_product(job, g, threads);
  }
}

// ---------------------------------------------------------------------------- the packed functions

[[noreturn]] void fail(const std::string& message) {
  throw_error("RX5032", {"raxc.matmul_f32 / raxc.linear_f32 (or a fused form): " + message});
}

const Tensor& float32_tensor(const std::vector<Value>& args, size_t i, const char* what,
                             bool operand) {
  const TensorPtr* t = i < args.size() ? args[i].tensor() : nullptr;
  if (!t || !*t) fail(std::string(what) + " must be a tensor");
  DLDataType d = (*t)->dtype();
  if (d.code != kDLFloat || d.bits != 32 || d.lanes != 1)
    fail(std::string(what) + " must be float32, not " + dtype_name(d));
  if (operand && (*t)->ndim() == 0) fail(std::string(what) + " must have at least one axis");
  return **t;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// The epilogue a packed function's name asks for: "raxc.matmul_bias_gelu_residual_f32" is
// "raxc.matmul_f32" followed by a bias add, GELU and a residual add; its arguments are the
// operands, then the scale (a 0-d tensor), the bias (n,) and the residual (shaped as the
// result) when named, then out.
struct EpilogueForm {
  bool scale = false;
  bool bias = false;
  Activation act = Activation::kNone;
  bool residual = false;
  size_t extra() const { return size_t(scale) + size_t(bias) + size_t(residual); }
  std::string suffix() const {
    std::string s = scale ? "_scale" : "";
    s += bias ? "_bias" : "";
    s += act == Activation::kGelu ? "_gelu" : act == Activation::kRelu ? "_relu" : "";
    return s + (residual ? "_residual" : "");
  }
  std::string operands() const {
    return std::string(scale ? ", scale" : "") + (bias ? ", bias" : "") +
           (residual ? ", residual" : "");
  }
};

// The bias and residual tensors of an epilogue (arguments `first` on), checked against the
// result, into g.epi.
Epilogue epilogue_of(const EpilogueForm& form, const std::vector<Value>& args, size_t first,
                     const std::vector<int64_t>& result) {
  Epilogue e;
  e.act = form.act;
  int64_t n = !result.empty() ? result.back() : 1;
  if (form.scale) {
    const Tensor& scale = float32_tensor(args, first++, "scale", false);
    if (scale.ndim() != 0) fail("scale " + shape_text(scale.shape()) + " is not a scalar");
    e.scale = scale.data_as<float>();
  }
  if (form.bias) {
    const Tensor& bias = float32_tensor(args, first++, "bias", true);
    if (bias.ndim() != 1 || bias.shape()[0] != n)
      fail("bias " + shape_text(bias.shape()) + " is not one value per column of the output " +
           shape_text(result));
    e.bias = bias.data_as<float>();
  }
  if (form.residual) {
    const Tensor& residual = float32_tensor(args, first, "residual", false);
    if (residual.shape() != result)
      fail("residual " + shape_text(residual.shape()) + " is not shaped as the output " +
           shape_text(result));
    e.residual = residual.data_as<float>();
  }
  return e;
}

// An operand as the product reads it: element `index` at data + Σ index[e] · strides[e].
struct Operand {
  const float* data = nullptr;
  std::vector<int64_t> shape, strides;
  bool plain = true;  // the tensor itself, row-major
};

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

Operand plain_operand(const Tensor& t) {
  return {t.data_as<float>(), t.shape(), row_major_strides(t.shape()), true};
}

const std::vector<int64_t>& shape_argument(const std::vector<Value>& args, size_t i,
                                           const char* what) {
  const Shape* s = i < args.size() ? args[i].get_if<Shape>() : nullptr;
  if (!s) fail(std::string(what) + " must be a shape");
  return s->dims;
}

// The operand a "raxc.matmul_view…" call reads from tensor `base`: the elements a kernel
// gathering base[K + C · index] (index over `shape`) would have given, read in place. `shape`
// empty: the tensor itself. `map`: K (one per axis of base), then C row by row (an axis of base
// × the view's axes). Every element the view reaches must lie in base.
Operand viewed_operand(const Tensor& base, const std::vector<int64_t>& shape,
                       const std::vector<int64_t>& map, const char* what) {
  if (shape.empty()) return plain_operand(base);
  size_t rin = base.shape().size(), rout = shape.size();
  if (map.size() != rin + rin * rout)
    fail(std::string(what) + "'s view map has " + std::to_string(map.size()) + " integers, not " +
         std::to_string(rin + rin * rout));
  std::vector<int64_t> base_strides = row_major_strides(base.shape());
  Operand o{base.data_as<float>(), shape, std::vector<int64_t>(rout, 0), false};
  int64_t offset = 0;
  for (size_t d = 0; d < rin; ++d) offset += map[d] * base_strides[d];
  int64_t lo = offset, hi = offset;
  bool empty = false;
  for (size_t e = 0; e < rout; ++e) {
    for (size_t d = 0; d < rin; ++d) o.strides[e] += map[rin + d * rout + e] * base_strides[d];
    empty |= shape[e] <= 0;
    (o.strides[e] < 0 ? lo : hi) += o.strides[e] * (shape[e] - 1);
  }
  if (!empty && (lo < 0 || hi >= base.numel()))
    fail(std::string(what) + "'s view " + shape_text(shape) + " reads outside its tensor " +
         shape_text(base.shape()));
  if (!empty) o.data += offset;
  return o;
}

// The stride at which the rows of A (rank ≥ 2) follow each other across its batch axes and its
// row axis, when it is one stride (axes of extent 1 aside); 0 when it is not.
int64_t row_stride_across_batches(const Operand& a, int64_t k) {
  int64_t stride = 0, next = 0;  // the innermost stride; what the next axis out must step by
  for (size_t e = a.shape.size() - 1; e-- > 0;) {
    if (a.shape[e] == 1) continue;
    if (stride == 0)
      stride = a.strides[e];
    else if (a.strides[e] != next)
      return 0;
    next = a.strides[e] * a.shape[e];
  }
  return stride == 0 ? k : stride > 0 ? stride : 0;
}

// "raxc.matmul[_view]<epilogue>_f32"(a, b, <epilogue operands>, [6 view shapes,] out): out =
// a · b as R.matmul (batch axes broadcast), then the epilogue. The view forms read a and b and
// write the result through views (viewed_operand: a shape and a map for each of a, b and out)
// instead of kernels that would copy them so: backend/fuse/views.cpp folds attention's
// reshapes and transposes of q, k and v, and of its context, into them.
Value matmul_f32(const std::vector<Value>& args, const EpilogueForm& form, bool views) {
  size_t count_args = 3 + form.extra() + (views ? 6 : 0);
  if (args.size() != count_args)
    fail("expects (a, b" + form.operands() +
         (views ? ", a_shape, a_map, b_shape, b_map, out_shape, out_map" : "") + ", out), got " +
         std::to_string(args.size()) + " arguments");
  const Tensor& at = float32_tensor(args, 0, "a", true);
  const Tensor& bt = float32_tensor(args, 1, "b", true);
  const Tensor& out = float32_tensor(args, args.size() - 1, "out", false);
  size_t v0 = 2 + form.extra();
  auto operand = [&](const Tensor& t, size_t at_arg, const char* what) {
    return views ? viewed_operand(t, shape_argument(args, at_arg, "a view's shape"),
                                  shape_argument(args, at_arg + 1, "a view's map"), what)
                 : plain_operand(t);
  };
  Operand a = operand(at, v0, "a"), b = operand(bt, v0 + 2, "b"), c = operand(out, v0 + 4, "out");
  const auto& as = a.shape;
  const auto& bs = b.shape;
  size_t ra = as.size(), rb = bs.size();
  if (ra == 0 || rb == 0) fail("the operands must have at least one axis");
  int64_t m = ra > 1 ? as[ra - 2] : 1;
  int64_t k = as[ra - 1];
  int64_t kb = rb > 1 ? bs[rb - 2] : bs[0];
  int64_t n = rb > 1 ? bs[rb - 1] : 1;
  // The output's batch axes: the operands' batch axes broadcast (right-aligned).
  std::vector<int64_t> abatch(as.begin(), as.end() - std::min<size_t>(ra, 2));
  std::vector<int64_t> bbatch(bs.begin(), bs.end() - std::min<size_t>(rb, 2));
  size_t nb = std::max(abatch.size(), bbatch.size());
  std::vector<int64_t> batch(nb, 1);
  bool ok = k == kb;
  for (size_t d = 0; d < nb; ++d) {
    int64_t x = d + abatch.size() >= nb ? abatch[d + abatch.size() - nb] : 1;
    int64_t y = d + bbatch.size() >= nb ? bbatch[d + bbatch.size() - nb] : 1;
    if (x != y && x != 1 && y != 1) ok = false;
    batch[d] = x == 1 ? y : x;
  }
  std::vector<int64_t> expected = batch;
  if (ra > 1) expected.push_back(m);
  if (rb > 1) expected.push_back(n);
  if (!ok || c.shape != expected)
    fail("operands " + shape_text(as) + " and " + shape_text(bs) + " do not give the output " +
         shape_text(c.shape));
  if (out.numel() == 0) return Value{Tuple{}};
  Epilogue epi = epilogue_of(form, args, 2, c.shape);
  // The residual is read at C's indices, so C must be laid out as it is (a tensor).
  if (epi.residual && !c.plain) fail("a residual needs the output itself, not a view of it");
  // A's rows are read along k, contiguous; B's either along n (a matrix) or along k (a
  // transposed one, as R.linear's weight); C's rows are written along n.
  if (k > 1 && a.strides[ra - 1] != 1) fail("a's view does not read its rows in order");
  if (n > 1 && c.strides.back() != 1) fail("out's view does not write its rows in order");
  int64_t lda = m > 1 ? a.strides[ra - 2] : k;
  int64_t ldc = m > 1 && ra > 1 && rb > 1 ? c.strides[c.strides.size() - 2] : n;
  bool b_transposed = rb > 1 && n > 1 && b.strides[rb - 1] != 1;
  if (b_transposed && k > 1 && b.strides[rb - 2] != 1)
    fail("b's view reads neither its rows nor its columns in order");
  int64_t ldb = rb == 1 ? 1 : b_transposed ? b.strides[rb - 1] : k > 1 ? b.strides[rb - 2] : n;
  // A row stride of 0 would read as a packed panel to the kernels (and a negative one is not
  // tiled): such views are left to the kernels that copy them.
  if (k == 0)  // nothing is read
    lda = ldb = 1;
  else if (lda <= 0 || ldb <= 0)
    fail("a view's rows must lie at a positive stride");
  if (ldc <= 0) fail("out's view must write its rows at a positive stride");

  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  Job job;
  job.kr = &kernel();
  float* cp = const_cast<float*>(c.data);  // out's own elements
  // B the same for every batch element (a weight: `x (b, n, k) · w (k, m)`): one product of all
  // of A's rows, (batch·m × k)·(k × n), when A's rows, and C's, follow each other at one stride
  // across their batch axes (always for tensors; for a view such as PyTorch's (n, 1, d)
  // transpose of its (1, n, d) input, whose 128 batch elements of one row each ran as 128
  // products, 3 times as long), instead of one product per batch element that packs B again and
  // splits fewer rows over the threads.
  int64_t a_rows = ra > 1 ? row_stride_across_batches(a, k) : 0;
  int64_t c_rows = ra < 2 ? 0 : rb > 1 ? row_stride_across_batches(c, n) : c.plain ? 1 : 0;
  if (count > 1 && a_rows > 0 && c_rows > 0 &&
      std::all_of(bbatch.begin(), bbatch.end(), [](int64_t e) { return e == 1; })) {
    job.gemms.push_back(
        Gemm{a.data, b.data, cp, count * m, n, k, a_rows, ldb, c_rows, b_transposed, epi});
    run_gemms(job);
    return Value{Tuple{}};
  }
  // One Gemm per output batch element, each operand at its batch axes' strides (0 where it is
  // broadcast).
  job.gemms.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(nb, 0);
  for (int64_t q = 0; q < count; ++q) {
    int64_t aoff = 0, boff = 0, coff = 0;
    for (size_t d = 0; d < nb; ++d) {
      if (d + abatch.size() >= nb) {
        size_t axis = d + abatch.size() - nb;
        if (abatch[axis] != 1) aoff += index[d] * a.strides[axis];
      }
      if (d + bbatch.size() >= nb) {
        size_t axis = d + bbatch.size() - nb;
        if (bbatch[axis] != 1) boff += index[d] * b.strides[axis];
      }
      coff += index[d] * c.strides[d];
    }
    Epilogue at_q = epi;  // the residual's element q, as C's
    if (at_q.residual) at_q.residual += q * m * n;
    job.gemms.push_back(
        Gemm{a.data + aoff, b.data + boff, cp + coff, m, n, k, lda, ldb, ldc, b_transposed, at_q});
    for (size_t d = nb; d-- > 0;) {  // the next batch index, row-major
      if (++index[d] < batch[d]) break;
      index[d] = 0;
    }
  }

  run_gemms(job);
  return Value{Tuple{}};
}

// "raxc.linear_f32"(x, w[, bias], out): out = x · wᵀ (+ bias), R.linear in float32; x (..., in),
// w (out, in), bias (out,). The weight is packed from its rows (a transposed B); the bias is the
// product's epilogue, as is the rest of a fused one ("raxc.linear_bias_gelu_f32", EpilogueForm).
Value linear_f32(const std::vector<Value>& args, EpilogueForm form) {
  if (form.suffix().empty() && args.size() == 4) form.bias = true;  // the plain name's bias
  if (args.size() != 3 + form.extra())
    fail("expects (x, w" + form.operands() + ", out)" +
         (form.suffix().empty() ? " or (x, w, bias, out)" : "") + ", got " +
         std::to_string(args.size()) + " arguments");
  const Tensor& x = float32_tensor(args, 0, "x", true);
  const Tensor& w = float32_tensor(args, 1, "w", true);
  const Tensor& out = float32_tensor(args, args.size() - 1, "out", false);
  const auto& xs = x.shape();
  int64_t k = xs.back();
  int64_t n = w.ndim() == 2 ? w.shape()[0] : -1;
  std::vector<int64_t> expected(xs.begin(), xs.end() - 1);
  expected.push_back(n);
  if (w.ndim() != 2 || w.shape()[1] != k || out.shape() != expected)
    fail("x " + shape_text(xs) + " and w " + shape_text(w.shape()) + " do not give the output " +
         shape_text(out.shape()));
  if (out.numel() == 0) return Value{Tuple{}};
  int64_t m = out.numel() / n;
  Job job;
  job.kr = &kernel();
  job.gemms.push_back(Gemm{x.data_as<float>(), w.data_as<float>(), out.data_as<float>(), m, n, k, k,
                           k, n, true, epilogue_of(form, args, 2, out.shape())});
  run_gemms(job);
  return Value{Tuple{}};
}

}  // namespace

void multiply_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  Job job;
  job.kr = &kernel();
  job.gemms.push_back(Gemm{a, b, c, m, n, k, k, n, n, false});
  run_gemms(job);
}

bool matmul_uses_generic_kernel() { return kernel().micro == micro_generic; }

std::vector<std::pair<const char*, PackedFunction>> matmul_builtins() {
  std::vector<std::pair<const char*, PackedFunction>> all;
  // Every epilogue form: a scale or not, a bias or not, an activation or not, a residual or
  // not. The names live as long as the process (the registry is built once).
  static std::vector<std::string> names;
  names.reserve(3 * 8 * 3);                // no reallocation: the pointers taken below stay valid
  for (int flags = 0; flags < 8; ++flags)  // scale, bias, residual
    for (Activation act : {Activation::kNone, Activation::kGelu, Activation::kRelu}) {
      EpilogueForm form{(flags & 1) != 0, (flags & 2) != 0, act, (flags & 4) != 0};
      names.push_back("raxc.matmul" + form.suffix() + "_f32");
      all.emplace_back(names.back().c_str(), [form](const std::vector<Value>& args) {
        return matmul_f32(args, form, false);
      });
      names.push_back("raxc.matmul_view" + form.suffix() + "_f32");
      all.emplace_back(names.back().c_str(), [form](const std::vector<Value>& args) {
        return matmul_f32(args, form, true);
      });
      names.push_back("raxc.linear" + form.suffix() + "_f32");
      all.emplace_back(names.back().c_str(),
                       [form](const std::vector<Value>& args) { return linear_f32(args, form); });
    }
  return all;
}

}  // namespace raxc::runtime
