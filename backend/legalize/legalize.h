// Legalization (TVM's LegalizeOps): every call of a tensor operator whose arguments and result
// have fully known StructInfo (symbolic dimensions included) becomes an R.call_tir of a
// generated TIR PrimFunc in our own IR, so the module runs on the kernels backend/jit compiles
// and prints as ordinary TVMScript (`raxc lower`). The rules live in one table keyed by the
// operator's registered name (rules.h, one row per operator); generated PrimFuncs are named
// like TVM's (`add`, `matmul`, `softmax`, …, numbered on clashes) and deduplicated by
// structure. A call without a rule, or whose shapes are not known, stays as it is: it refuses
// at run time with a coded diagnostic naming the operator, at the call.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/infer/infer.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/module.h"

namespace raxc::backend {

struct LegalizeInput {
  const ir::IRModule* module = nullptr;
  // The analysed normal form and inference of a global Relax function (null: not analysed; the
  // function is kept as written).
  std::function<const ir::Function*(const ir::GlobalDef&)> function;
  std::function<const analysis::FunctionInference*(const ir::GlobalDef&)> inference;
};

struct LeftCall {
  Span span;        // the call
  std::string op;   // "R.nn.conv2d"
  std::string why;  // "no legalization yet", "the shape of the result is not known", …
};

struct LoweredModule {
  // The original globals (Relax functions rewritten), then the generated PrimFuncs by name. Its
  // nodes refer to the input module's and the analysis's nodes, which must outlive it.
  ir::IRModule module;
  // The inferred StructInfo of every variable of the rewritten functions (for printing).
  std::unordered_map<const ir::Var*, const ir::StructInfo*> var_sinfo;
  size_t legalized_calls = 0;
  size_t generated = 0;        // PrimFuncs added (after deduplication)
  std::vector<LeftCall> left;  // operator calls kept as they are, in source order
};

std::unique_ptr<LoweredModule> legalize_module(const LegalizeInput& input);

// The operators that have a legalization ("relax.add", …), in table order.
std::vector<std::string_view> legalized_operators();
bool has_legalization(std::string_view op);

}  // namespace raxc::backend
