// Value kind names (messages and the printers).
#include "backend/runtime/value.h"

namespace raxc::runtime {

const char* Value::kind_name() const {
  static constexpr const char* names[] = {"null", "tensor", "tuple", "shape",
                                          "prim", "string", "dtype", "callable"};
  return names[v.index()];
}

}  // namespace raxc::runtime
