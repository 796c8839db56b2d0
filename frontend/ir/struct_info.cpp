// The shared unknown StructInfo (struct_info.h): one immutable object for the whole process.
#include "frontend/ir/struct_info.h"

namespace raxc::ir {

const StructInfo* unknown_sinfo() {
  static const ObjectSInfo unknown(Span{}, true);
  return &unknown;
}

}  // namespace raxc::ir
