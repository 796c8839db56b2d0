// The operator registry (operators.md §3): ONE table-driven definition per operator
// with its text name, arguments, attributes with defaults, StructInfo inference, purity and a
// one-line doc (hover, completion, signature help). The backend adds lowering to the same table.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/arith/analyzer.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/expr.h"
#include "frontend/ir/module.h"

namespace raxc::analysis::ops {

// What kind of value an argument or attribute takes (for arity/type errors and completion).
enum class ArgKind : uint8_t {
  Tensor,      // a Relax value with TensorStructInfo
  Shape,       // ShapeExpr / a value with ShapeStructInfo
  Prim,        // a PrimValue
  Tuple,       // a tuple of tensors (concat, call_tir args)
  Any,         // any Relax value
  Int,         // attribute: integer
  IntList,     // attribute: list of integers / PrimExprs
  Float,       // attribute: float
  Bool,        // attribute: bool
  String,      // attribute: string
  DType,       // attribute: dtype string
  StructInfo,  // sinfo_args / out_sinfo
  Other,
};

struct ParamSpec {
  std::string_view name;
  ArgKind kind;
  bool optional = false;
  std::string_view default_text = {};  // as written in a signature: "None", "False", "-1"
};

enum class Purity : uint8_t { Pure, Impure };

// Everything an inference rule sees. Errors reported here are coded diagnostics (RX3xxx
// incompatible, RX4xxx possibly compatible / suspicious) located at the call or an argument.
struct InferContext {
  const ir::Call& call;
  // The inferred StructInfo of each positional argument, in order (never null).
  std::vector<const ir::StructInfo*> args;
  arith::Analyzer& analyzer;
  DiagnosticSink& diags;
  // The module being checked, when known: to_vdevice / alloc_tensor resolve vdevices through
  // its global_info list, and call_tir can look at the callee PrimFunc.
  const ir::IRModule* module = nullptr;

  ir::Arena& arena() { return analyzer.arena(); }
  // A Var's span is where it is bound (uses share the node), so a Var argument is located at the
  // call itself.
  Span arg_span(size_t i) const {
    if (i >= call.args.size() || ir::isa<ir::Var>(call.args[i]) || call.args[i]->span.empty())
      return call.span;
    return call.args[i]->span;
  }
  // Dimension pairs a rule took as equal without a proof (it reported DimensionsMaybeDiffer):
  // the backend checks them at run time. Null when nobody asks.
  std::vector<std::pair<const ir::PrimExpr*, const ir::PrimExpr*>>* assumed_equal = nullptr;

  void report(DiagPayload what, Span at) { diags.report(make_diagnostic(std::move(what), at)); }
  void assume_equal(const ir::PrimExpr* a, const ir::PrimExpr* b) {
    if (assumed_equal) assumed_equal->push_back({a, b});
  }
};

// Returns the call's StructInfo; on an error it reports and returns a best-effort StructInfo
// (e.g. a TensorSInfo with unknown shape), never null.
using InferFn = const ir::StructInfo* (*)(InferContext& ctx);

struct OpDef {
  std::string_view name;         // the IR op name: "relax.add", "relax.nn.conv2d"
  std::string_view text;         // as written in TVMScript: "R.add", "R.nn.conv2d"
  std::vector<ParamSpec> args;   // positional arguments
  std::vector<ParamSpec> attrs;  // keyword attributes with defaults
  // StructInfo the parser takes into the call's sinfo_args, as signatures write them: the
  // `out_sinfo` of the call_tir family and call_dps_packed (`out_ty` in the newest dialect), the
  // `sinfo_args` of packed calls and closures. Not arguments: arity checks do not count them.
  std::vector<ParamSpec> struct_info_params = {};
  Purity purity = Purity::Pure;
  InferFn infer = nullptr;
  std::string_view doc;  // one line, for hover / completion
  // The last positional parameter takes any number of arguments (R.print values,
  // call_pure_packed arguments); attributes are then keyword-only.
  bool variadic = false;
  // An operator of the language itself (the call_tir family, packed calls, closures, shape
  // and memory operations, R.print, R.assert_op, R.inspect.*, ...): the executor and the code
  // generator carry it out; it is never legalized to a kernel.
  bool language = false;
};

// nullptr when `name` ("relax.add") is not registered.
const OpDef* find_op(std::string_view name);
std::span<const OpDef> all_ops();

// Checks arity and attribute names/types against the OpDef (coded errors at the offending
// argument), then runs the inference rule. Unknown ops: a warning and ObjectStructInfo.
const ir::StructInfo* infer_call(const ir::Op& op, InferContext& ctx);

}  // namespace raxc::analysis::ops
