// What several IDE features share: finding the Relax function around an offset (its lowered IR
// for positions, its normal form and inference for StructInfo), and the text questions asked
// before any IR is looked at (is the cursor in a comment, on a word). Internal to ide/.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/document.h"
#include "frontend/ir/expr.h"
#include "ide/ide.h"

namespace raxc::ide::detail {

// One global Relax function of the document.
struct FunctionAt {
  std::string name;
  Span range;                                              // its text, decorators included
  const ir::Function* lowered = nullptr;                   // spans map to text (to_text)
  const ir::Function* normalized = nullptr;                // what inference describes
  const analysis::FunctionInference* inference = nullptr;  // null when not analysed
};

// Every global Relax function whose definition lowered, in source order.
std::vector<FunctionAt> functions(FileRef file);
// The one whose text contains `offset`.
std::optional<FunctionAt> function_at(FileRef file, uint32_t offset);

// The text span of an IR node's span (IR offsets are per definition; see frontend/document.h).
Span text_span(FileRef file, Span ir_span);

// True when `offset` is inside a `#` comment of its line (outside string literals).
bool in_comment(std::string_view text, uint32_t offset);
// True when the character at `offset` belongs to a name, a number or a string literal.
bool on_word(std::string_view text, uint32_t offset);
bool is_word_char(char c);
// A valid name for a Relax variable, shape variable or function (not a keyword or namespace).
bool is_identifier(std::string_view name);

// The binding of `var` in `f` (nested functions included), or null.
const ir::Binding* binding_of(const ir::Function* f, const ir::Var* var);

// The keyword arguments of the operator call left open at the end of `before_cursor`
// (signature_help.cpp), for completion.
std::vector<std::string> open_call_keywords(std::string_view before_cursor);

// The printed form, "" for null.
std::string print(const ir::StructInfo* sinfo);

}  // namespace raxc::ide::detail
