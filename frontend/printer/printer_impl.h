// Internals of the canonical printer, shared by its .cpp files (module/Relax, TIR, PrimExpr,
// comments). The structure follows TVM's printer (src/script/printer): "frames" own the names
// defined in them, prefixes record which namespaces the text uses, and statements are built as
// lines with relative indentation.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/equal.h"
#include "frontend/ir/module.h"
#include "frontend/printer/printer.h"

namespace raxc::printer::detail {

// Python operator precedence, lowest to highest (TVM's ExprPrecedence).
enum Prec : int {
  kLambda = 1,
  kIfThenElse,
  kOr,
  kAnd,
  kNot,
  kCompare,
  kBitOr,
  kBitXor,
  kBitAnd,
  kShift,
  kAdd,
  kMult,
  kUnary,
  kPow,
  kAtom,
};

// An expression's text and the precedence of its outermost operator.
struct Doc {
  std::string text;
  int prec = kAtom;
};

struct Line {
  int indent = 0;
  std::string text;  // empty: a blank line (printed without indentation)
};

// Statements as lines indented relative to their enclosing block.
class Lines {
 public:
  void add(int indent, std::string text) { lines_.push_back({indent, std::move(text)}); }
  void blank() { lines_.push_back({0, ""}); }
  void append(const Lines& other, int extra_indent = 0) {
    for (const Line& l : other.lines_)
      lines_.push_back({l.text.empty() ? 0 : l.indent + extra_indent, l.text});
  }
  // Appends `text` to line `index` (trailing comments).
  void append_to(size_t index, std::string_view text) {
    if (index < lines_.size() && !text.empty()) lines_[index].text += text;
  }
  bool empty() const { return lines_.empty(); }
  size_t size() const { return lines_.size(); }
  const std::vector<Line>& lines() const { return lines_; }
  void render(std::string& out, int base_indent = 0) const;

 private:
  std::vector<Line> lines_;
};

// Names currently in scope. A name is unique among those defined in live frames; it is freed
// when its frame ends (TVM's IRDocsifier::Define / GenerateUniqueName).
class NameTable {
 public:
  void reserve(std::string name) { used_.insert(std::move(name)); }
  void push_frame() { frames_.emplace_back(); }
  void pop_frame();
  size_t depth() const { return frames_.size(); }
  // Defines `object` in frame `frame` (default: the innermost) under a unique spelling of `hint`.
  std::string define(const void* object, std::string_view hint, size_t frame = SIZE_MAX);
  const std::string* find(const void* object) const {
    auto it = names_.find(object);
    return it == names_.end() ? nullptr : &it->second;
  }
  bool defined(const void* object) const { return names_.count(object) > 0; }

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<const void*, std::string> names_;
  std::vector<std::vector<const void*>> frames_;
};

// Attaches source comments to the printed statements (see comments.cpp).
class CommentIndex {
 public:
  CommentIndex(const std::vector<Comment>& comments, std::string_view source);
  // Anchors are registered in print order; a node may be registered once. An anchor that
  // cannot trail only takes the comments before it.
  void add_anchor(const void* node, Span span, bool can_trail = true);
  void resolve();
  // Own-line comments attached before `node`, at `indent`.
  void emit_leading(const void* node, int indent, Lines& out);
  // Trailing comments of `node` as "  # …" (empty when none), for the end of its first line.
  std::string trailing(const void* node);
  // Comments whose anchor was never printed, and comments after every anchor.
  std::vector<std::string> take_leftovers();

 private:
  struct Anchor {
    const void* node;
    Span span;
    size_t order;
    bool can_trail;
  };
  struct Attached {
    std::vector<size_t> leading;
    std::vector<size_t> trailing;
  };
  uint32_t line_of(uint32_t offset) const;

  std::vector<Comment> comments_;
  std::vector<bool> emitted_;
  std::string_view source_;
  std::vector<uint32_t> line_starts_;
  std::vector<Anchor> anchors_;
  std::unordered_map<const void*, Attached> attached_;
};

// True when the comment is one the printer writes itself (headers, root block, metadata).
bool is_generated_comment(std::string_view text);

class Printer {
 public:
  Printer(const ir::IRModule& module, const PrintOptions& options, CommentIndex& comments);
  std::string print();
  // One StructInfo in the printer's spelling (`R.Tensor((n, 4), dtype="float32")`).
  std::string struct_info_text(const ir::StructInfo* s) { return sinfo(s); }

 private:
  // ------------------------------------------------------------------ prefixes (printer.cpp)
  std::string R(std::string_view attr);
  std::string T(std::string_view attr);
  std::string I(std::string_view attr);
  std::vector<std::string> header_lines() const;

  // ------------------------------------------------------------------ module (printer.cpp)
  void collect_anchors();
  void collect_anchors(const ir::SeqExpr* seq);
  void collect_anchors(const ir::Stmt* stmt);
  Lines module_class();
  Lines global(const ir::GlobalDef& g, bool top_level);
  std::string attr_dict(const ir::Attrs& attrs, std::string_view skip_key = {});
  Doc attr_value(const ir::AttrValue& value);
  std::string vdevice_string(const ir::VDevice* vdevice);
  std::string global_info_list(const std::string& key, const ir::AttrValue& value);
  std::string dtensor_sinfo(const ir::TensorSInfo* t);
  std::string tensor_shape(const ir::Expr* shape);
  std::string device_mesh(const ir::DeviceMesh& mesh);
  std::string device_mesh_call(const ir::DeviceMesh& mesh, bool in_global_infos);
  std::string target_doc(const ir::AttrValue& target);

  // ------------------------------------------------------------------ Relax (relax_printer.cpp)
  struct FunctionState {
    Lines pre;         // declarations, R.func_attr, `cls = Module`
    size_t frame = 0;  // the NameTable frame of the parameters
    bool module_alias_printed = false;
  };
  Lines relax_function(const ir::Function* f, const std::string& name, bool top_level);
  Lines seq_expr(const ir::SeqExpr* seq, const std::string* result_var,
                 const std::string& result_ann);
  void block(const ir::BindingBlock* block, Lines& out);
  void binding(const ir::Binding* b, Lines& out, std::vector<std::string>* outputs);
  std::string binding_annotation(const ir::Binding* b);
  std::string rhs(const ir::Expr* value);
  Doc expr(const ir::Expr* e);
  Doc call(const ir::Call* c);
  std::optional<Doc> call_tir_family(const ir::Call* c, const std::string& op);
  Doc callee(const ir::Expr* e);
  Doc constant(const ir::Constant* c);
  Doc global_var(const ir::GlobalVar* g);
  std::string var_name(const ir::Var* v);
  std::string sinfo(const ir::StructInfo* s);
  std::string shape_dim(const ir::PrimExpr* e);
  std::string call_args(const std::vector<std::string>& args,
                        const std::vector<std::pair<std::string, std::string>>& kwargs);
  const ir::StructInfo* inferred(const ir::Var* v) const;

  // ------------------------------------------------------------------ PrimExpr (prim_printer.cpp)
  Doc prim(const ir::PrimExpr* e);
  Doc prim_var(const ir::PrimVar* v);
  std::string var_creation(const ir::PrimVar* v);
  Doc int_literal(const ir::IntImm* imm);
  Doc float_literal(const ir::FloatImm* imm);
  Doc binary(const ir::PrimBinary* b);
  Doc prim_call(const ir::PrimCall* c);
  std::string paren(const Doc& d, int parent, bool same_too);
  std::string index_map(const ir::IndexMap* m);
  const ir::PrimExpr* add(const ir::PrimExpr* a, const ir::PrimExpr* b);

  // ------------------------------------------------------------------ TIR (tir_printer.cpp)
  Lines prim_func(const ir::PrimFunc* f, const std::string& name);
  bool inline_buffer_param(const ir::PrimFunc* f, const ir::PrimFuncParam& p) const;
  std::string buffer_call(const ir::Buffer* b, const std::string& method,
                          std::vector<std::string> args, bool annotation_form);
  void declare_shape_vars(const ir::Buffer* b, Lines& out);
  const ir::Block* implicit_root(const ir::PrimFunc* f) const;
  void stmt_body(const ir::Stmt* s, Lines& out);
  void stmt(const ir::Stmt* s, Lines& out);
  void for_loop(const ir::For* loop, Lines& out);
  void block_stmt(const ir::Block* b, Lines& out);
  std::string buffer_name(const ir::Buffer* b);
  std::string define_buffer(const ir::Buffer* b);
  std::string indices(const std::vector<const ir::PrimExpr*>& idx);
  std::string region(const ir::BufferRegion& r);
  std::string range_end(const ir::PrimExpr* min, const ir::PrimExpr* extent);
  void flush_tir_declarations(Lines& out);
  std::string block_keyword() const;
  std::string alloc_keyword() const;

  // ------------------------------------------------------------------ state
  const ir::IRModule& module_;
  const PrintOptions& options_;
  CommentIndex& comments_;
  ir::Arena scratch_;  // temporary PrimExprs (folded range ends)
  NameTable names_;
  bool uses_ir_ = false, uses_tir_ = false, uses_relax_ = false;
  bool in_module_ = false;
  bool uses_metadata_ = false;
  bool relax_context_ = true;  // PrimExpr spelling: Relax (bare ints) or TIR (typed literals)
  std::vector<FunctionState*> functions_;  // Relax functions being printed, outermost first
  std::unordered_set<const ir::PrimVar*>* func_vars_ = nullptr;  // signature variables
  // TIR: the function frame and declarations waiting to be placed before the current statement.
  size_t tir_function_frame_ = 0;
  Lines tir_pending_;
  std::vector<const ir::PrimVar*> loop_vars_;  // enclosing loops (block axis remapping)
  std::vector<const ir::For*> loops_;
};

}  // namespace raxc::printer::detail
