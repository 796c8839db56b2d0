// The canonical printer behind `raxc fmt`: prints an IRModule the way TVM's classic TVMScript
// printer does (text-format.md §7), keeping the source's comments.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ir/module.h"
#include "frontend/span.h"

namespace raxc::printer {

// A `#` comment of the source, text included (`# note`). The frontend collects them from the CST.
struct Comment {
  Span span;
  std::string text;
};

struct PrintOptions {
  // classic-A: `T.block`, `tir` header; classic-B: `T.sblock`, `tirx` header (TVM v0.24+).
  enum class TirDialect { ClassicA, ClassicB };
  TirDialect tir = TirDialect::ClassicA;
  // The StructInfo of a binding variable that has no annotation, when the analysis inferred one.
  // Without it such bindings print unannotated (`y = R.add(x, x)`).
  std::function<const ir::StructInfo*(const ir::Var*)> struct_info_of;
};

// `source` is the text the module and the comments' spans come from (comment placement uses it);
// it may be empty when there are no comments.
std::string print_module(const ir::IRModule& module, const PrintOptions& options = {},
                         const std::vector<Comment>& comments = {},
                         std::string_view source = {});

// One StructInfo as the printer spells it in an annotation: `R.Tensor((n, 4), dtype="float32")`,
// `R.Tuple(R.Shape([1]), R.Object)`. For messages, hovers and inlay hints.
std::string print_struct_info(const ir::StructInfo* struct_info);

// Literal spellings shared with tests: TVM's float format (`1.0`, `0.10000000000000001`,
// `1.0000000000000001e-05`) and its string escaping (`"a\"b\x0A"` style, `\n` `\t` `\r` kept).
std::string format_float(double value);
std::string quote_string(std::string_view text);

}  // namespace raxc::printer
