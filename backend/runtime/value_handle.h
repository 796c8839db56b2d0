// The box behind raxc_value.h's opaque RaxcValue handle, and the helpers every part of the
// runtime that takes or returns handles shares (private to backend/runtime).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/value.h"

struct RaxcValue {
  std::atomic<int64_t> refs{1};
  raxc::runtime::Value value;
};

namespace raxc::runtime {

// A new handle holding `v` (one reference), null when memory runs out.
RaxcValue* box(Value v);
// "a float32 tensor of shape (2, 3)", "the shape (4,)", ...: a value in messages.
std::string describe(const RaxcValue* h);
std::string describe(const Value& v);
// Records an error at `site` whose template takes the site's strings, then `extra`; returns 1.
int32_t fail(const RaxcErrorSite* site, std::vector<std::string> extra);

}  // namespace raxc::runtime
