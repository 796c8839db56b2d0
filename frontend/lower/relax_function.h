// The lowering of one Relax function (and its nested functions): scopes, symbolic variables,
// statements, expressions and annotations. Internal to frontend/lower/relax_*.cpp.
#pragma once
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/lower/relax_lower.h"

namespace raxc::lower {

// A symbolic shape variable of a Relax function (text-format.md §4.5, §10 item 1).
struct SymVar {
  const ir::PrimVar* var;
  bool bound;  // introduced by the signature or bound by a match_cast
};

// What a name in a Relax body denotes.
struct Name {
  enum class Kind : uint8_t { Var, Sym, PrimAlias, Module, String };
  Kind kind = Kind::Var;
  ir::Var* var = nullptr;  // mutable while lowering: R.output turns DataflowVars into Vars
  SymVar* sym = nullptr;
  const ir::PrimExpr* prim = nullptr;
  std::string str;

  static Name of(ir::Var* var) {
    Name n;
    n.var = var;
    return n;
  }
};

struct Frame {
  enum class Kind : uint8_t { Function, Dataflow, Branch };
  Kind kind;
  std::unordered_map<std::string, Name> names;
};

// Facts about a Relax variable that the lowering itself needs.
struct VarFacts {
  int tuple_arity = -1;                      // known tuple length (annotation or literal tuple)
  const ir::StructInfo* func_ret = nullptr;  // a local function's declared return
  bool func_returns_void = false;
};

// A Python scalar read from an R.const value.
struct Scalar {
  enum class Tag : uint8_t { Int, Float, Bool } tag = Tag::Int;
  __int128 i = 0;
  double f = 0;
};

// Arguments of a call, split like Python does.
struct CallArgs {
  std::vector<TSNode> positional;
  std::vector<std::pair<std::string, TSNode>> keywords;
};

// Where an annotation is written; decides how symbolic dimensions are read (§4.5).
enum class SInfoMode : uint8_t {
  Signature,  // parameter annotations: identifier strings introduce variables
  Return,     // return annotation: strings reference signature variables
  Body,       // bindings, out_sinfo, sinfo_args: bare names of declared, bound variables
  MatchCast,  // R.match_cast target: a bare declared-unbound variable gets bound
};

class FunctionLowerer;

// Node-type tests for names that are C++ keywords (true, false, float) and fields likewise
// (operator, namespace), which the cst::Kind / cst::Field enums cannot spell.
inline bool is_type(TSNode n, std::string_view type) {
  return !ts_node_is_null(n) && type == ts_node_type(n);
}
inline bool is_error_node(TSNode n) { return ts_node_symbol(n) == TSSymbol(-1); }
inline TSNode field_by_name(TSNode n, std::string_view name) {
  return ts_node_child_by_field_name(n, name.data(), uint32_t(name.size()));
}

// Adapter that lets the PrimExpr lowering see the Relax scopes.
class ScopeNames : public PrimNames {
 public:
  explicit ScopeNames(const FunctionLowerer& owner) : owner_(owner) {}
  const ir::PrimVar* find_var(std::string_view name) const override;
  const ir::PrimExpr* find_expr(std::string_view name) const override;
  // Unbound symbolic variables met since the last reset (reported by the caller).
  mutable std::vector<std::string> unbound_uses;
  bool allow_unbound = false;
  // Signature lowering: the signature's own variables, visible before the scopes.
  const std::unordered_map<std::string, const ir::PrimVar*>* signature = nullptr;

 private:
  const FunctionLowerer& owner_;
};

class FunctionLowerer {
 public:
  FunctionLowerer(LowerContext& ctx, const ModuleScope& module) : ctx_(ctx), module_(module) {}

  // A whole `relax_function` (top-level or nested). `self` is the variable a nested recursive
  // function is bound to (null otherwise).
  const ir::Function* lower_function(TSNode node, bool nested, ir::Var* self);
  const ir::StructInfo* lower_sinfo_outside(TSNode node);

  const Name* lookup(std::string_view name) const;

 private:
  friend class ScopeNames;
  struct Builder;  // blocks of the SeqExpr being built
  struct Branch {
    bool ok = false;
    std::string name;
    const ir::StructInfo* annotation = nullptr;
    const ir::SeqExpr* seq = nullptr;
    Span span, last_span;
    const ir::Var* last_var = nullptr;  // replaced by the if's result variable (§5.5)
  };
  struct IfResult {
    std::string name;
    const ir::StructInfo* annotation = nullptr;
    const ir::Expr* expr = nullptr;
    // The branches' last variables, which the result variable replaces (source map).
    std::vector<const ir::Var*> replaced;
  };

  // ---- functions (relax_function.cpp)
  struct Decorator {
    bool pure = true;
    bool is_private = false;
  };
  Decorator lower_decorators(TSNode node);
  bool is_recursive(TSNode body, std::string_view name) const;
  bool calls_name(TSNode node, std::string_view name) const;
  std::vector<const ir::Var*> lower_params(TSNode params_node);
  const ir::SeqExpr* lower_body(TSNode block, ir::Attrs& attrs, bool is_private);
  const ir::SeqExpr* finish_seq(Builder& b, const ir::Expr* body, Span at);

  // ---- statements (relax_function.cpp)
  bool lower_statement(TSNode stmt, Builder& b);
  bool dispatch_statement(TSNode stmt, Builder& b);
  bool lower_broken_statement(TSNode stmt, Builder& b);
  void bind_broken(Span at, TSNode target, TSNode annotation, Builder& b);
  const ir::Expr* error_expr(TSNode node);
  void poison_names(TSNode node);
  void lower_binding(TSNode stmt, Builder& b);
  void lower_simple_binding(TSNode stmt, TSNode left, TSNode annotation, TSNode right, Builder& b);
  void lower_unpack(TSNode stmt, TSNode left, TSNode right, Builder& b);
  bool lower_declaration(TSNode left_names, TSNode right, Builder& b);
  void bind_prim_alias(TSNode target, TSNode value);
  void lower_expression_statement(TSNode stmt, Builder& b);
  void lower_dataflow(TSNode stmt, Builder& b);
  void lower_output(TSNode call, Builder& b);
  void lower_if(TSNode stmt, Builder& b);
  Branch lower_branch(TSNode block, const char* suffix);
  const ir::Expr* lower_condition(TSNode cond);
  std::optional<IfResult> lower_if_chain(TSNode cond, TSNode consequence,
                                         const std::vector<TSNode>& clauses, size_t next, Span at);
  void lower_return(TSNode stmt, Builder& b);
  void lower_nested_function(TSNode stmt, Builder& b);
  void lower_func_attr(TSNode call, Builder& b);
  ir::Var* emit(Builder& b, std::string name, const ir::StructInfo* annotation,
                const ir::Expr* value, const ir::StructInfo* match_cast, Span var_span, Span span,
                ir::Var* existing = nullptr);
  void bind_name(std::string name, Name entry);
  void implicit_outputs(TSNode expr);

  // ---- expressions (relax_expr.cpp)
  enum class LiteralMode : uint8_t { Constant, PrimValue };
  const ir::Expr* lower_expr(TSNode node, LiteralMode literals = LiteralMode::PrimValue);
  const ir::Expr* lower_identifier(TSNode node);
  const ir::Expr* lower_attribute(TSNode node);
  const ir::Expr* lower_subscript(TSNode node);
  const ir::Expr* lower_tuple(TSNode node, LiteralMode literals);
  const ir::Expr* lower_binary(TSNode node);
  const ir::Expr* lower_unary(TSNode node);
  const ir::Expr* lower_literal(TSNode node, LiteralMode literals);
  const ir::Expr* lower_prim_value(TSNode node);
  const ir::Expr* lower_call(TSNode node);
  const ir::Expr* lower_astype(TSNode node);
  const ir::Expr* lower_op_call(TSNode node, const std::string& path);
  const ir::Expr* lower_generic_op(TSNode node, const std::string& op_name);
  const ir::Expr* lower_call_tir(TSNode node, const std::string& path);
  const ir::Expr* lower_packed(TSNode node, const std::string& path);
  const ir::Expr* lower_print(TSNode node, bool is_assert);
  const ir::Expr* lower_const(TSNode node);
  const ir::Expr* lower_const_value(TSNode value, std::optional<ir::DataType> dtype, Span at);
  bool read_scalars(TSNode node, std::vector<Scalar>& out, std::vector<int64_t>& shape,
                    size_t depth);
  const ir::Expr* lower_extern_func(TSNode node);
  CallArgs split_args(TSNode call);
  bool bind_params(TSNode call, const CallArgs& args, const std::vector<std::string_view>& params,
                   std::unordered_map<std::string, TSNode>& out, const std::string& what);
  std::optional<std::vector<int64_t>> lower_int_list(TSNode node);
  const ir::IndexMap* lower_index_map(TSNode lambda);
  const ir::Expr* lower_shape_expr(TSNode node, TSNode values);
  const ir::Expr* lower_callee_symbol(TSNode node);
  const ir::GlobalVar* global_ref(TSNode node);
  bool is_prim_expression(TSNode node) const;
  bool is_number(TSNode node) const;
  const ir::PrimExpr* lower_prim(TSNode node, ir::DataType literal_default = ir::DataType::Int(64));
  std::optional<ir::AttrValue> lower_attr_value(TSNode node);
  std::vector<const ir::StructInfo*> lower_sinfo_list(TSNode node, bool list_is_tuple);
  const ir::Expr* wrap_args_tuple(TSNode node, bool inplace);
  void report_unbound(Span span);
  std::string relax_path(TSNode node) const;
  std::string tir_path_of(TSNode node) const;
  bool is_shadowed(std::string_view prefix) const;
  bool is_module_ref(TSNode node) const;

  // ---- annotations (relax_sinfo.cpp)
  const ir::StructInfo* lower_sinfo(TSNode node, SInfoMode mode);
  const ir::StructInfo* lower_tensor_sinfo(TSNode node, TSNode args, SInfoMode mode);
  // The tensor part of R.Tensor / R.DTensor from its bound "shape", "dtype", "vdevice", "ndim".
  ir::TensorSInfo* tensor_sinfo_of(Span at, std::unordered_map<std::string, TSNode>& p,
                                   SInfoMode mode);
  const ir::StructInfo* lower_dtensor_sinfo(TSNode node, TSNode args, SInfoMode mode);
  // R.dist.annotate_sharding / R.dist.redistribute (device mesh and placement attributes).
  const ir::Expr* lower_distribution_op(TSNode node, const std::string& path);
  const ir::Expr* lower_dist_const(TSNode node);
  const ir::StructInfo* lower_shape_sinfo(TSNode node, TSNode args, SInfoMode mode);
  const ir::StructInfo* lower_prim_sinfo(TSNode node, TSNode args, SInfoMode mode);
  const ir::StructInfo* lower_tuple_sinfo(TSNode node, TSNode args, SInfoMode mode);
  const ir::StructInfo* lower_callable_sinfo(TSNode node, TSNode args, SInfoMode mode);
  std::optional<std::vector<const ir::PrimExpr*>> lower_dims(TSNode list, SInfoMode mode);
  const ir::PrimExpr* lower_dim(TSNode node, SInfoMode mode, ir::DataType literal_default);
  const ir::VDevice* resolve_vdevice(TSNode node);
  void collect_signature_vars(TSNode node, bool in_dims);
  void collect_bare_dim_names(TSNode node);
  void introduce_signature_var(std::string name, Span span, bool bare);

  // ---- the source map (frontend/ir/source_map.h; relax_function.cpp)
  template <class T>
  void record_name(Span at, const T* entity) {
    if (ctx_.source_map) ctx_.source_map->record(at, entity);
  }
  void record_name(TSNode name, const ir::Var* var) { record_name(span(name), var); }
  void record_global(TSNode name);
  // The name inside the quotes of a string (`"n"`), as a document token covers it.
  Span quoted_name(TSNode string) const;
  // A binding's targets with what their names denoted before it (see record_unlowered_names).
  struct PriorName {
    std::string name;
    Span target;                // the target itself: a definition, never a use
    std::optional<Name> entry;  // what the name denoted before the binding
  };
  using PriorNames = std::vector<PriorName>;
  PriorNames prior_names(TSNode stmt) const;
  void record_unlowered_names(TSNode node, size_t mark, const PriorNames& prior);

  template <class T, class... Args>
  T* make(Args&&... args) {
    return ctx_.make<T>(std::forward<Args>(args)...);
  }
  void error(DiagPayload what, Span span);
  Span span(TSNode node) const { return ctx_.cst.span(node); }
  std::string text(TSNode node) const { return std::string(ctx_.cst.text(node)); }
  const cst::Cst& cst() const { return ctx_.cst; }

  LowerContext& ctx_;
  const ModuleScope& module_;
  std::vector<Frame> frames_;
  std::deque<SymVar> sym_storage_;
  std::unordered_map<const ir::Var*, VarFacts> facts_;
  // Dataflow variables whose block has ended, each with its block's R.output(...) call (empty
  // when the block has none): a use after the block can be fixed by listing it there.
  std::unordered_map<std::string, Span> left_dataflow_;
  std::unordered_set<std::string> poisoned_;  // names whose binding failed (no cascades)  // names
                                              // that went out of scope with a block
  ScopeNames names_{*this};
  // Signature lowering state.
  std::unordered_map<std::string, const ir::PrimVar*> signature_vars_;
  std::vector<std::string> signature_order_;
  std::vector<TSNode> bare_dims_;  // non-string signature dims, for bare-name checks
  std::unordered_set<std::string> top_level_sig_names_;  // declared at this function's top
  Builder* current_ = nullptr;
  ir::Attrs* func_attrs_ = nullptr;
  ir::Var* pending_self_ = nullptr;  // the recursive nested function just lowered
  int dataflow_depth_ = 0;
  bool seen_return_ = false;
  bool body_has_syntax_error_ = false;
  // The variable each dataflow name whose block has ended denoted in it: a use after the block
  // is an error, but still names that variable (source map).
  std::unordered_map<std::string, const ir::Var*> left_dataflow_vars_;
};

}  // namespace raxc::lower
