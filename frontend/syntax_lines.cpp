// The line part of the syntax check (frontend/syntax_parts.h): indentation, missing ':',
// dangling operators, juxtaposed operands and parameters the format forbids, one logical line of
// the tokenizer at a time. These are inferences: the combination reports them only where the
// tree also shows an error.
#include <algorithm>
#include <optional>
#include <string>

#include "frontend/syntax_parts.h"

namespace raxc::frontend::syntax {
namespace {

// What a missing ':' ends, by the statement's keyword.
const char* colon_context(std::string_view keyword) {
  if (keyword == "def") return "function signature";
  if (keyword == "class") return "class name";
  if (keyword == "if") return "'if' condition";
  if (keyword == "elif") return "'elif' condition";
  if (keyword == "else") return "'else'";
  if (keyword == "for") return "'for' clause";
  if (keyword == "while") return "'while' condition";
  if (keyword == "with") return "'with' item";
  return nullptr;
}

const char* block_owner(std::string_view keyword) {
  if (keyword == "def") return "function definition";
  if (keyword == "class") return "class definition";
  if (keyword == "if") return "'if' statement";
  if (keyword == "elif") return "'elif' clause";
  if (keyword == "else") return "'else' clause";
  if (keyword == "for") return "'for' statement";
  if (keyword == "while") return "'while' statement";
  return "'with' statement";
}

// Operators that need an expression after them.
bool needs_operand(std::string_view op) {
  for (std::string_view o :
       {"=",  "+",  "-",  "*",   "/",   "//",  "%",  "**",  "@",  "<<", ">>", "&",
        "|",  "^",  "~",  "<",   ">",   "<=",  ">=", "==",  "!=", "->", "+=", "-=",
        "*=", "/=", "%=", "//=", "**=", "and", "or", "not", "in", "is"})
    if (op == o) return true;
  return false;
}

// Indentation, missing ':' and dangling operators, one logical line at a time.
class LineChecker {
 public:
  LineChecker(std::string_view text, const Window& window, Tokens& tz)
      : text_(text.substr(0, window.end)), tz_(tz) {
    levels_.push_back({0, 0});
    // A class member's window starts inside the class's block.
    if (window.column > 0 && !tz_.lines.empty())
      levels_.push_back({tz_.lines[0].column, tz_.lines[0].alt_column});
  }

  void run() {
    for (size_t i = 0; i < tz_.lines.size(); ++i) check_line(i);
    if (pending_ && pending_->requires_block) {
      uint32_t n = uint32_t(text_.size());
      report(diag::ExpectedIndentedBlock{.header = header_description()}, {n, n},
             {pending_->line_start, n});
    }
    tz_.pending_block = pending_ && pending_->requires_block;
    tz_.indentation_error = indentation_error_;
  }

 private:
  struct Level {
    uint32_t column, alt_column;
    std::string_view last_keyword = {};  // of the last statement at this level
  };
  struct Header {
    uint32_t keyword;  // token index
    uint32_t line_start;
    bool requires_block;  // ends with ':' (a missing ':' allows but does not need a block)
  };

  void check_line(size_t index) {
    const LogicalLine& line = tz_.lines[index];
    const Token& first = tz_.tokens[line.first];
    Span first_span{first.begin, first.end};
    uint32_t prev_start = index > 0 ? tz_.lines[index - 1].line_start : 0;
    Span around{prev_start, line.end};

    Level top = levels_.back();
    if (sign(line.column, top.column) != sign(line.alt_column, top.alt_column))
      report(diag::InconsistentTabsAndSpaces{}, {line.line_start, first.begin},
             {line.line_start, first.begin}, true);

    // After an indentation error the levels are guesses: stay quiet until a line is back at a
    // column that agrees with them (the block's, for a stray indent), or at column 0 (the errors
    // in between are the same problem's). Ending there keeps an error inside one definition (a
    // stray space while typing) from silencing the definitions after it.
    if (line.column == 0 || line.column == error_column_) indentation_error_ = false;
    bool reported = false;
    if (line.column > top.column) {
      if (!pending_) {
        report_indentation(diag::UnexpectedIndent{}, first_span, around, top.column);
        reported = true;
      }
      push({line.column, line.alt_column}, first_span);
    } else if (pending_ && pending_->requires_block) {
      report_indentation(diag::ExpectedIndentedBlock{.header = header_description()}, first_span,
                         {pending_->line_start, line.end}, line.column);
      reported = true;
    }
    if (line.column < levels_.back().column) {
      while (line.column < levels_.back().column) levels_.pop_back();
      if (line.column != levels_.back().column) {
        if (!reported)
          report_indentation(diag::UnindentMismatch{}, first_span, around, line.column);
        push({line.column, line.alt_column}, first_span);
      }
    }
    check_clause_order(line);
    check_header(line);
    check_operands(line);
    check_signature(line);
    check_annotation_value(line);
    check_comprehension(line);
    check_juxtaposition(line);
  }

  // `R.add(x y)`, `y = 1 2`: two operands side by side ("perhaps you forgot a comma?").
  void check_juxtaposition(const LogicalLine& line) {
    for (uint32_t k = line.first + 1; k < line.last; ++k) {
      const Token& a = tz_.tokens[k - 1];
      const Token& b = tz_.tokens[k];
      bool after_dot = k >= 2 && text(tz_.tokens[k - 2]) == ".";  // `x.def`: an attribute
      bool a_operand = a.kind == Tok::Number || a.kind == Tok::String || a.kind == Tok::Close ||
                       (a.kind == Tok::Name && (after_dot || !is_keyword(text(a))));
      bool b_operand = b.kind == Tok::Number || (b.kind == Tok::Name && !is_keyword(text(b)));
      if (!a_operand || !b_operand) continue;
      report(diag::MissingOperatorOrComma{.left = std::string(text(a)).substr(0, 24),
                                          .right = std::string(text(b))},
             {b.begin, b.end}, {line.line_start, line.end});
      return;
    }
  }

  static bool is_keyword(std::string_view w) {
    static constexpr std::string_view kKeywords[] = {
        // sorted: two tests per token pair
        "and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
        "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
        "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
        "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield"};
    return std::binary_search(std::begin(kKeywords), std::end(kKeywords), w);
  }

  // 'else' / 'elif' must continue an 'if' (or 'for'/'while' for 'else') at the same level.
  void check_clause_order(const LogicalLine& line) {
    const Token& first = tz_.tokens[line.first];
    std::string_view word = first.kind == Tok::Name ? text(first) : std::string_view{};
    std::string_view previous = levels_.back().last_keyword;
    levels_.back().last_keyword = word;
    if (word != "else" && word != "elif") return;
    bool continues = previous == "if" || previous == "elif" ||
                     (word == "else" && (previous == "for" || previous == "while"));
    if (!continues)
      report(diag::UnmatchedClauseKeyword{.keyword = std::string(word), .expected_keyword = "if"},
             {first.begin, first.end}, {line.line_start, line.end});
  }

  // Parameters are 'name' or 'name: annotation': no defaults, '*args', '**kwargs', '/'.
  void check_signature(const LogicalLine& line) {
    if (text(tz_.tokens[line.first]) != "def") return;
    uint32_t k = line.first;
    while (k < line.last && tz_.tokens[k].kind != Tok::Open) ++k;
    if (k == line.last || text(tz_.tokens[k]) != "(") return;
    for (++k; k < line.last && tz_.tokens[k].depth > 0; ++k) {
      const Token& t = tz_.tokens[k];
      if (t.depth != 1) continue;
      std::string_view op = text(t);
      std::string what;
      if (op == "=" && k > line.first && tz_.tokens[k - 1].kind == Tok::Name)
        what = "a default value for parameter '" + std::string(text(tz_.tokens[k - 1])) + "'";
      else if (op == "*" || op == "**" || op == "/")
        what = "'" + std::string(op) +
               (k + 1 < line.last && tz_.tokens[k + 1].kind == Tok::Name
                    ? std::string(text(tz_.tokens[k + 1]))
                    : "") +
               "' in the parameter list";
      if (what.empty()) continue;
      report(diag::UnsupportedInSignature{.construct = what}, {t.begin, t.end},
             {line.line_start, line.end});
      return;
    }
  }

  // `x: R.Tensor(...)` without '= value'.
  void check_annotation_value(const LogicalLine& line) {
    if (line.last - line.first < 3) return;
    const Token& name = tz_.tokens[line.first];
    const Token& colon = tz_.tokens[line.first + 1];
    if (name.kind != Tok::Name || colon_context(text(name)) || text(name) == "lambda") return;
    if (text(colon) != ":") return;
    for (uint32_t k = line.first + 2; k < line.last; ++k)
      if (tz_.tokens[k].depth == 0 && (text(tz_.tokens[k]) == "=" || text(tz_.tokens[k]) == ":"))
        return;
    report(diag::AnnotatedNameWithoutValue{.name = std::string(text(name))},
           {name.begin, tz_.tokens[line.last - 1].end}, {line.line_start, line.end});
  }

  void check_comprehension(const LogicalLine& line) {
    for (uint32_t k = line.first; k < line.last; ++k) {
      const Token& t = tz_.tokens[k];
      if (t.depth > 0 && t.kind == Tok::Name && text(t) == "for") {
        report(diag::ComprehensionUnsupported{}, {t.begin, t.end}, {line.line_start, line.end});
        return;
      }
    }
  }

  // Indentation problems are certain: the tree parses the lines of a stray indent as statements
  // of the enclosing block (grammar.js `_indented_statements`), so no tree error confirms them.
  // `resync_column`: where the lines are consistent again (see check_line).
  void report_indentation(DiagPayload what, Span at, Span extent, uint32_t resync_column) {
    if (!indentation_error_) {
      report(std::move(what), at, extent, true);
      error_column_ = resync_column;
    }
    indentation_error_ = true;
  }

  void push(Level level, Span at) {
    levels_.push_back(level);
    if (levels_.size() == kMaxIndentLevels + 2 && !too_deep_) {
      too_deep_ = true;
      report(diag::NestingTooDeep{.max_depth = kMaxIndentLevels}, at, at, true);
    }
  }

  void check_header(const LogicalLine& line) {
    const Token& first = tz_.tokens[line.first];
    const Token& last = tz_.tokens[line.last - 1];
    pending_.reset();
    const char* context = first.kind == Tok::Name ? colon_context(text(first)) : nullptr;
    if (!context) return;
    if (text(last) == ":" && last.depth == 0) {
      pending_ = Header{line.first, line.line_start, true};
      return;
    }
    for (uint32_t k = line.first; k < line.last; ++k)
      if (tz_.tokens[k].depth == 0 && text(tz_.tokens[k]) == ":") return;  // a one-line suite
    pending_ = Header{line.first, line.line_start, false};
    if (needs_operand(text(last)) || text(last) == "." || last.kind == Tok::Invalid) return;
    report(diag::ExpectedColon{.context = context}, {last.end, last.end},
           {line.line_start, line.end});
  }

  // `x =` at a line end, `f(axis=)`, `a + )`: the first operator of the line without operand.
  void check_operands(const LogicalLine& line) {
    for (uint32_t k = line.first; k < line.last; ++k) {
      const Token& t = tz_.tokens[k];
      if (t.kind != Tok::Op && t.kind != Tok::Name) continue;
      std::string_view op = text(t);
      bool at_end = k + 1 == line.last;
      bool before_close =
          !at_end && (tz_.tokens[k + 1].kind == Tok::Close || text(tz_.tokens[k + 1]) == ",");
      if (!at_end && !before_close) continue;
      if (op == ".") {
        report(diag::MissingAttributeName{}, {t.begin, t.end}, {line.line_start, line.end});
        return;
      }
      if (!needs_operand(op)) continue;
      if ((op == "*" || op == "**") && before_close) continue;  // '*args': the parser says more
      report(diag::MissingExpressionAfterToken{.token = std::string(op)}, {t.begin, t.end},
             {line.line_start, line.end});
      return;
    }
  }

  std::string header_description() const {
    const Token& keyword = tz_.tokens[pending_->keyword];
    return std::string(block_owner(text(keyword))) + " on line " +
           std::to_string(tz_.line_number(keyword.begin));
  }

  static int sign(uint32_t a, uint32_t b) { return a < b ? -1 : a > b ? 1 : 0; }

  std::string_view text(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }

  void report(DiagPayload what, Span at, Span extent, bool certain = false) {
    // After a string left open, Python stops; the brackets and lines we see are guesses.
    if (!certain && at.begin > tz_.first_unterminated_string) return;
    tz_.problems.push_back({std::move(what), at, extent, certain});
  }

  std::string_view text_;
  Tokens& tz_;
  std::vector<Level> levels_;
  std::optional<Header> pending_;
  bool too_deep_ = false;
  bool indentation_error_ = false;
  uint32_t error_column_ = 0;  // where the lines agree again after the last indentation error
};

}  // namespace

void check_lines(std::string_view text, const Window& window, Tokens& tokens) {
  LineChecker(text, window, tokens).run();
}

}  // namespace raxc::frontend::syntax
