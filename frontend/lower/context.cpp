#include "frontend/lower/context.h"

namespace raxc::lower {

// The names TVM's parser provides without any import (text-format.md §3.2).
Namespaces::Namespaces() {
  map_ = {{"R", Namespace::Relax}, {"relax", Namespace::Relax}, {"T", Namespace::Tir},
          {"tir", Namespace::Tir}, {"tirx", Namespace::Tir},    {"I", Namespace::Ir},
          {"ir", Namespace::Ir},   {"tvm", Namespace::Tvm}};
}

const Namespace* Namespaces::find(std::string_view prefix) const {
  auto it = map_.find(std::string(prefix));
  return it == map_.end() ? nullptr : &it->second;
}

}  // namespace raxc::lower
