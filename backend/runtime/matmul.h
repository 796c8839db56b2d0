// What the float32 matmul kernel (matmul.cpp) shares with the other run-time kernels: one
// plain product on its packed, register-tiled micro-kernel, threads as raxc.matmul_f32 uses
// them. The 1×1 convolution (conv2d.cpp) is such a product of the weight and the image.
#pragma once
#include <cstdint>

namespace raxc::runtime {

// c[m×n] = a[m×k] · b[k×n], all row-major and contiguous. Throws RX5026 when a packing buffer
// cannot be allocated.
void multiply_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

// Whether the matmul kernel runs its portable micro-kernel (no AVX-512, or RAXC_MATMUL_GENERIC
// set); the convolution follows the same choice.
bool matmul_uses_generic_kernel();

}  // namespace raxc::runtime
