// State shared by every part of the CST → AST lowering of one file.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"
#include "frontend/ir/source_map.h"
#include "frontend/lower/cst.h"

namespace raxc::lower {

// What a prefix such as `R`, `T`, `I` is bound to (text-format.md §3.2). Imports rebind them.
enum class Namespace : uint8_t { Relax, Tir, Ir, Tvm };

class Namespaces {
 public:
  Namespaces();  // the default environment: R/relax, T/tir/tirx, I/ir, tvm
  const Namespace* find(std::string_view prefix) const;
  void bind(std::string prefix, Namespace ns) { map_[std::move(prefix)] = ns; }
  bool operator==(const Namespaces&) const = default;

 private:
  std::unordered_map<std::string, Namespace> map_;
};

struct LowerContext {
  const cst::Cst& cst;
  DiagnosticSink& diags;
  ir::IRModule& module;
  Namespaces namespaces;
  ir::Arena* arena = nullptr;  // the arena of the definition being lowered
  // Where the names the definition's Relax scopes resolve are recorded (frontend/ir/source_map.h),
  // or null when nobody asked. PrimFunc bodies record nothing: their names are TIR's own.
  ir::SourceMap* source_map = nullptr;

  template <class T, class... Args>
  T* make(Args&&... args) {
    return arena->make<T>(std::forward<Args>(args)...);
  }
};

}  // namespace raxc::lower
