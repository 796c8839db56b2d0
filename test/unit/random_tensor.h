// Float32 tensors of uniform random values in [-scale, scale), for the runtime kernels' unit
// tests (seeded: a failure reproduces).
#pragma once

#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "backend/runtime/tensor.h"

namespace raxc::test {

inline runtime::TensorPtr random_tensor(std::vector<int64_t> shape, std::mt19937& rng,
                                        float scale = 1) {
  auto t = runtime::Tensor::empty(std::move(shape), DLDataType{kDLFloat, 32, 1});
  REQUIRE(t);
  std::uniform_real_distribution<float> draw(-scale, scale);
  for (int64_t i = 0; i < t->numel(); ++i) t->data_as<float>()[i] = draw(rng);
  return t;
}

}  // namespace raxc::test
