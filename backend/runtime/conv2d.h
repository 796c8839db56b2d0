// The float32 convolution kernel of the runtime (conv2d.cpp), "raxc.conv2d_nchw_f32", with the
// choice of implementation open so tests can run each one on any machine.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "backend/runtime/packed.h"
#include "backend/runtime/value.h"

namespace raxc::runtime {

enum class Conv2dPath {
  kAuto,           // what the packed function does: the fastest for the shape and the CPU
  kDirectAvx512,   // the direct kernel, AVX-512 tiles (the portable ones on other CPUs)
  kDirectGeneric,  // the direct kernel, portable tiles
  kChannels,       // the channel-vectorised kernel (AVX-512; RX5032 for a shape it does not
                   // take: its tests), the portable tiles on other CPUs
  kGemm,           // a 1×1, stride-1, unpadded convolution as one matmul per image and group
                   // (other shapes take the direct kernel); measured no faster, kept to compare
};

// What a fused form applies to each output element after its sum, in this order: the bias of
// its output channel (K values in any shape; the fusion passes those of shape (K, 1, 1) and
// (1, K, 1, 1)), the residual's element at the same index (shaped as the output), ReLU.
// "raxc.conv2d_nchw_bias_residual_relu_f32" names all three; its operands follow x and w.
struct Conv2dEpilogue {
  bool bias = false, residual = false, relu = false;
  size_t extra() const { return size_t(bias) + size_t(residual); }
  std::string suffix() const {
    return std::string(bias ? "_bias" : "") + (residual ? "_residual" : "") + (relu ? "_relu" : "");
  }
  std::string operands() const {
    return std::string(bias ? ", bias" : "") + (residual ? ", residual" : "");
  }
};

// "raxc.conv2d_nchw_f32"(x, w, stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
// dilation_h, dilation_w, groups, out) through `path`; with an epilogue, its operands after w.
Value conv2d_nchw_f32(const std::vector<Value>& args, Conv2dPath path, Conv2dEpilogue form = {});

std::vector<std::pair<const char*, PackedFunction>> conv2d_builtins();

}  // namespace raxc::runtime
