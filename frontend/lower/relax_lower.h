// Relax half of the CST → AST lowering (text-format.md §3–§5, §10): module-level declarations,
// Relax functions, bindings, expressions, StructInfo annotations and name resolution.
#pragma once
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/ir/module.h"
#include "frontend/lower/context.h"
#include "frontend/lower/prim.h"

namespace raxc::lower {

// What the first pass over a module learns about each global (text-format.md §3.3): enough to
// resolve `cls.f` and to check calls before any body is lowered.
struct GlobalInfo {
  enum class Kind : uint8_t { Relax, Prim, Extern };
  Kind kind = Kind::Relax;
  bool has_return_annotation = false;
  bool returns_void = false;  // the return annotation is R.Tuple() / R.Tuple
  // Where the name is written in the text the scope was built from. An outline may share an
  // earlier outline's scope (lower.h, OutlineReuse): only the declaration pass reads this.
  Span name_span;
};

struct ModuleScope {
  struct NameHash {  // looks names up without copying them into a std::string
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::string class_name;  // empty for a lone function
  std::unordered_map<std::string, GlobalInfo, NameHash, std::equal_to<>> globals;
  const GlobalInfo* find(std::string_view name) const {
    auto it = globals.find(name);
    return it == globals.end() ? nullptr : &it->second;
  }
};

// Lowers one top-level `relax_function` node into ctx.arena.
const ir::Function* lower_relax_function(LowerContext& ctx, const ModuleScope& module, TSNode node);

// Lowers a StructInfo annotation that appears outside any function (module-level
// `R.ExternFunc("sym", R.Callable(...))`).
const ir::StructInfo* lower_module_sinfo(LowerContext& ctx, const ModuleScope& module, TSNode node);

// `R.Tuple()` / `R.Tuple` written as an annotation (syntactic; used by the declaration pass).
bool is_void_annotation(const LowerContext& ctx, TSNode annotation_value);

// An attribute-like value (`R.func_attr` dictionaries, module attrs, global infos, op keyword
// arguments) that contains only literals; reports and returns nullopt on anything else.
std::optional<ir::AttrValue> lower_literal_attr(LowerContext& ctx, TSNode node);

// If `node` is `<prefix>.a.b` with `<prefix>` bound to namespace `ns` (and not shadowed by a
// name for which `shadowed` returns true), the dotted path after the prefix; "" otherwise.
std::string namespace_path(const LowerContext& ctx, TSNode node, Namespace ns);

// The decoded value of a string node (reports malformed escapes).
std::optional<std::string> string_value(LowerContext& ctx, TSNode node);

// Identifier syntax of a Python name.
bool is_identifier(std::string_view text);

}  // namespace raxc::lower
