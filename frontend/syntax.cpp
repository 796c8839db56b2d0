#include "frontend/syntax.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "frontend/frontend.h"

namespace raxc::frontend {

bool SyntaxCheck::is_quarantined(uint32_t offset) const {
  for (const Span& s : quarantined)
    if (s.begin <= offset && offset < std::max(s.end, s.begin + 1)) return true;
  return false;
}

namespace {

using cst::Field;
using cst::Kind;

// More syntax errors than this in one file are noise (a binary file, a wrong file type).
constexpr size_t kMaxSyntaxErrors = 100;
// The scanner keeps at most 256 indentation levels, the outermost being column 0.
constexpr size_t kMaxIndentLevels = 255;

// ---------------------------------------------------------------------------- tokenizer

enum class Tok : uint8_t { Name, Number, String, Op, Open, Close, Invalid };

struct Token {
  Tok kind;
  uint32_t begin, end;
  uint32_t depth;  // open brackets around the token (for brackets: outside them)
};

// A logical line: a statement line with its bracket-joined and backslash-joined continuation.
struct LogicalLine {
  uint32_t first = 0, last = 0;  // token indices [first, last)
  uint32_t line_start = 0;       // offset of its first physical line
  uint32_t end = 0;              // offset after its last token
  uint32_t column = 0;           // indentation, a tab advancing to the next multiple of 8
  uint32_t alt_column = 0;       // indentation, a tab counting as 1 (Python's tab check)
};

// A problem found in the text. `certain` ones are facts of the tokenizer (an invalid character
// is invalid wherever it is); the others are inferences that are reported only where the tree
// also shows an error, so that a heuristic never contradicts a successful parse.
struct Problem {
  DiagId id;
  Span at;
  std::vector<std::string> args;
  Span extent;  // the text the problem disturbs: tree errors inside it are its consequences
  bool certain;
  Span quarantine{};  // set for problems found in an error-free tree (they poison only this)
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// Python keywords the format never uses; the scanner never lets them be names.
bool is_reserved_keyword(std::string_view word) {
  for (std::string_view k : {"yield", "try", "except", "finally", "raise", "global", "nonlocal",
                             "async", "await", "del"})
    if (word == k) return true;
  return false;
}

bool is_string_prefix(std::string_view p) {
  if (p.empty() || p.size() > 2) return false;
  for (char c : p)
    if (!std::strchr("rRbBuUfF", c)) return false;
  return true;
}

// Length of a strictly valid UTF-8 sequence at `s[i]` (0 when invalid); `cp` gets the code point.
uint32_t utf8_length(std::string_view s, size_t i, uint32_t& cp) {
  auto byte = [&](size_t k) -> unsigned { return k < s.size() ? (unsigned char)s[k] : 0u; };
  unsigned c = byte(i);
  if (c < 0x80) return cp = c, 1;
  uint32_t len = c >= 0xC2 && c <= 0xDF   ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4
                                          : 0;
  if (len == 0 || i + len > s.size()) return 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (uint32_t k = 2; k < len; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  cp = c & (0xFF >> (len + 1));
  for (uint32_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  return len;
}

// "'§' (U+00A7)", or just "U+00A0 (...)" for characters that do not show.
std::string describe_code_point(std::string_view text, uint32_t cp) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "U+%04X", cp);
  if (cp == 0) return std::string(hex) + " (NUL)";
  if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
    return std::string(hex) + " (a control character)";
  bool invisible = cp == 0xA0 || cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) ||
                   (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
                   cp == 0x3000 || cp == 0xFEFF;
  if (invisible) return std::string(hex) + " (an invisible or space character)";
  return "'" + std::string(text) + "' (" + hex + ")";
}

std::string hex_byte(unsigned char c) {
  char hex[4];
  std::snprintf(hex, sizeof hex, "%02X", c);
  return hex;
}

// A Python-style tokenizer, just precise enough to find brackets, logical lines, indentation,
// string literals and invalid characters. It never fails: it records problems and goes on.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text), n_(uint32_t(text.size())) {}

  std::vector<Token> tokens;
  std::vector<LogicalLine> lines;
  std::vector<Problem> problems;
  // Where the first string literal left open starts: the tokens after it are guesses.
  uint32_t first_unterminated_string = UINT32_MAX;

  void run() {
    uint32_t i = text_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    i = start_physical_line(i);
    while (i < n_) i = step(i);
    close_line();
    if (!brackets_.empty()) {
      const OpenBracket& open = brackets_.back();
      report_bracket(DiagId::RX1008, {open.at, open.at + 1}, {std::string(1, open.c)},
                     {open.at, n_});
    }
  }

  uint32_t line_number(uint32_t offset) const {
    return uint32_t(std::upper_bound(newlines_.begin(), newlines_.end(), offset) -
                    newlines_.begin()) +
           1;
  }

 private:
  struct OpenBracket {
    char c;
    uint32_t at;
  };

  uint32_t step(uint32_t i) {
    char c = text_[i];
    if (c == '\n' || (c == '\r' && i + 1 < n_ && text_[i + 1] == '\n')) return line_end(i);
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') return i + 1;
    if (c == '#') return comment(i);
    if (c == '\\') return backslash(i);
    if (is_ident_start(c)) return name(i);
    if (is_digit(c) || (c == '.' && i + 1 < n_ && is_digit(text_[i + 1]))) return number(i);
    if (c == '"' || c == '\'') return string(i, i);
    if (c == '(' || c == '[' || c == '{') return open_bracket(i);
    if (c == ')' || c == ']' || c == '}') return close_bracket(i);
    if (uint32_t len = operator_length(i)) return add(Tok::Op, i, i + len), i + len;
    return invalid(i);
  }

  uint32_t line_end(uint32_t i) {
    if (text_[i] == '\r') ++i;
    newlines_.push_back(i);
    ++i;
    if (!brackets_.empty()) return i;  // implicit line joining
    close_line();
    return start_physical_line(i);
  }

  // Measures the indentation of the line starting at `i` like src/scanner.c does.
  uint32_t start_physical_line(uint32_t i) {
    line_start_ = i;
    column_ = alt_column_ = 0;
    for (; i < n_; ++i) {
      char c = text_[i];
      if (c == ' ') {
        ++column_, ++alt_column_;
      } else if (c == '\t') {
        column_ = (column_ / 8 + 1) * 8, ++alt_column_;
      } else if (c == '\f' || (c == '\r' && !(i + 1 < n_ && text_[i + 1] == '\n'))) {
        column_ = alt_column_ = 0;
      } else {
        break;
      }
    }
    return i;
  }

  uint32_t comment(uint32_t i) {
    uint32_t j = i;
    while (j < n_ && text_[j] != '\n' && text_[j] != '\r') ++j;
    check_bytes(i, j);
    return j;
  }

  uint32_t backslash(uint32_t i) {
    uint32_t j = i + 1;
    if (j < n_ && text_[j] == '\r') ++j;
    if (j < n_ && text_[j] == '\n') {
      newlines_.push_back(j);
      return j + 1;  // explicit line joining: same logical line, no indentation
    }
    report(DiagId::RX1026, {i, i + 1}, {}, {i, i + 1}, true);
    add(Tok::Invalid, i, i + 1);
    return i + 1;
  }

  uint32_t name(uint32_t i) {
    uint32_t j = i;
    while (j < n_ && is_ident_char(text_[j])) ++j;
    std::string_view word = text_.substr(i, j - i);
    if (j < n_ && (text_[j] == '"' || text_[j] == '\'') && is_string_prefix(word))
      return string(i, j);
    bool after_dot = !tokens.empty() && tokens.back().kind == Tok::Op && text(tokens.back()) == ".";
    if (!after_dot && is_reserved_keyword(word))
      report(DiagId::RX1009, {i, j}, {std::string(word)}, {i, j}, true);
    add(Tok::Name, i, j);
    return j;
  }

  uint32_t number(uint32_t i) {
    bool hex = i + 1 < n_ && text_[i] == '0' && (text_[i + 1] == 'x' || text_[i + 1] == 'X');
    uint32_t j = i + 1;
    while (j < n_) {
      char c = text_[j];
      bool exponent_sign =
          (c == '+' || c == '-') && !hex && (text_[j - 1] == 'e' || text_[j - 1] == 'E');
      if (!is_ident_char(c) && c != '.' && !exponent_sign) break;
      ++j;
    }
    add(Tok::Number, i, j);
    return j;
  }

  // A string literal starting at `start`, its opening quote at `quote`.
  uint32_t string(uint32_t start, uint32_t quote) {
    std::string_view prefix = text_.substr(start, quote - start);
    if (prefix.find_first_of("fF") != std::string_view::npos)
      report(DiagId::RX1020, {start, quote + 1}, {}, {start, quote + 1}, true);
    char q = text_[quote];
    bool triple = quote + 2 < n_ && text_[quote + 1] == q && text_[quote + 2] == q;
    uint32_t j = quote + (triple ? 3 : 1);
    std::optional<uint32_t> end;
    while (j < n_) {
      char c = text_[j];
      if (c == '\\') {  // an escape, also of a quote or of a line end
        uint32_t next =
            (j + 2 < n_ && text_[j + 1] == '\r' && text_[j + 2] == '\n') ? j + 2 : j + 1;
        if (next < n_ && text_[next] == '\n') newlines_.push_back(next);
        j = next + 1;
        continue;
      }
      if (triple ? text_.substr(j, 3) == std::string(3, q) : c == q) {
        end = j + (triple ? 3 : 1);
        break;
      }
      if (!triple && (c == '\n' || (c == '\r' && j + 1 < n_ && text_[j + 1] == '\n'))) break;
      if (c == '\n') newlines_.push_back(j);
      ++j;
    }
    j = std::min(j, n_);
    check_bytes(quote + 1, end.value_or(j));
    if (!end) {
      if (!unterminated_string_) first_unterminated_string = start;
      unterminated_string_ = true;
      Span opening{start, quote + (triple ? 3 : 1)};
      report(DiagId::RX1011, opening, {triple ? "triple-quoted string" : "string"}, {start, j},
             true);
    }
    add(Tok::String, start, end.value_or(j));
    return end.value_or(j);
  }

  uint32_t open_bracket(uint32_t i) {
    add(Tok::Open, i, i + 1);
    brackets_.push_back({text_[i], i});
    return i + 1;
  }

  uint32_t close_bracket(uint32_t i) {
    char c = text_[i];
    char open = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (brackets_.empty()) {
      report_bracket(DiagId::RX1016, {i, i + 1}, {std::string(1, c)}, {i, i + 1});
      add(Tok::Invalid, i, i + 1);  // a stray closer closes nothing
      return i + 1;
    } else if (brackets_.back().c == open) {
      brackets_.pop_back();
    } else {
      OpenBracket top = brackets_.back();
      report_bracket(
          DiagId::RX1017, {i, i + 1},
          {std::string(1, c), std::string(1, top.c), std::to_string(line_number(top.at))},
          {top.at, i + 1});
      // `[1, (2]`: the ']' closes the '(' and the '['. `R.add(x, x]`: it closes the '(' (as
      // the scanner does).
      auto match = std::find_if(brackets_.rbegin(), brackets_.rend(),
                                [&](const OpenBracket& b) { return b.c == open; });
      if (match == brackets_.rend()) match = brackets_.rbegin();
      brackets_.erase(std::prev(match.base()), brackets_.end());
    }
    add(Tok::Close, i, i + 1);
    return i + 1;
  }

  // One bracket problem per logical line, and none once a string literal was left open (its
  // brackets are lost in the string): the rest would be the same problem's echoes.
  void report_bracket(DiagId id, Span at, std::vector<std::string> args, Span extent) {
    if (bracket_error_line_ == lines.size() || unterminated_string_) return;
    bracket_error_line_ = lines.size();
    report(id, at, std::move(args), extent, true);
  }

  uint32_t operator_length(uint32_t i) const {
    static constexpr std::string_view kOps[] = {
        "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
        "+=",  "-=",  "*=",  "/=",  "%=",  "&=", "|=", "^=", "@=", ":=", "+",  "-",  "*",  "/",
        "%",   "@",   "&",   "|",   "^",   "~",  "<",  ">",  "=",  ".",  ",",  ":",  ";"};
    for (std::string_view op : kOps)
      if (text_.substr(i, op.size()) == op) return uint32_t(op.size());
    return 0;
  }

  // A run of characters no token can start with: one diagnostic for the run (a binary file
  // gives one per line, not one per byte).
  uint32_t invalid(uint32_t i) {
    uint32_t cp = 0;
    uint32_t len = utf8_length(text_, i, cp);
    if (len == 0) {
      report(DiagId::RX1018, {i, i + 1}, {hex_byte(text_[i])}, {i, i + 1}, true);
    } else {
      report(DiagId::RX1006, {i, i + len}, {describe_code_point(text_.substr(i, len), cp)},
             {i, i + len}, true);
    }
    uint32_t j = i + std::max(len, 1u);
    while (j < n_ && starts_nothing(j)) {
      uint32_t l = utf8_length(text_, j, cp);
      j += std::max(l, 1u);
    }
    j = std::min(j, n_);
    problems.back().extent.end = j;
    add(Tok::Invalid, i, j);
    return j;
  }

  bool starts_nothing(uint32_t j) const {
    unsigned char c = text_[j];
    if (c >= 0x80) return true;
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') return true;
    return c == 0x7F || c == '$' || c == '?' || c == '`' || c == '!';
  }

  // NUL bytes and invalid UTF-8 inside comments and strings.
  void check_bytes(uint32_t begin, uint32_t end) {
    for (uint32_t k = begin; k < end; ++k) {
      unsigned char c = text_[k];
      if (c == 0) {
        report(DiagId::RX1006, {k, k + 1}, {describe_code_point("", 0)}, {k, k + 1}, true);
        return;
      }
      if (c < 0x80) continue;
      uint32_t cp;
      uint32_t len = utf8_length(text_, k, cp);
      if (len == 0) {
        report(DiagId::RX1018, {k, k + 1}, {hex_byte(c)}, {k, k + 1}, true);
        return;
      }
      k += len - 1;
    }
  }

  void add(Tok kind, uint32_t begin, uint32_t end) {
    if (!line_open_) {
      LogicalLine line;
      line.first = uint32_t(tokens.size());
      line.line_start = line_start_;
      line.column = column_;
      line.alt_column = alt_column_;
      lines.push_back(line);
      line_open_ = true;
    }
    // Called for '(' before the push and for ')' after the pop: brackets are outside.
    tokens.push_back({kind, begin, end, uint32_t(brackets_.size())});
  }

  void close_line() {
    if (!line_open_) return;
    lines.back().last = uint32_t(tokens.size());
    lines.back().end = tokens.back().end;
    line_open_ = false;
  }

  std::string_view text(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }

  void report(DiagId id, Span at, std::vector<std::string> args, Span extent, bool certain = true) {
    problems.push_back({id, at, std::move(args), extent, certain});
  }

  std::string_view text_;
  uint32_t n_;
  std::vector<OpenBracket> brackets_;
  std::vector<uint32_t> newlines_;  // offsets of '\n' bytes seen so far, increasing
  bool line_open_ = false;
  uint32_t line_start_ = 0, column_ = 0, alt_column_ = 0;
  size_t bracket_error_line_ = size_t(-1);  // index in `lines` of the last bracket problem
  bool unterminated_string_ = false;
};

// ---------------------------------------------------------------------------- line checks

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
  LineChecker(std::string_view text, Tokenizer& tz) : text_(text), tz_(tz) {}

  void run() {
    levels_.push_back({0, 0});
    for (size_t i = 0; i < tz_.lines.size(); ++i) check_line(i);
    if (pending_ && pending_->requires_block) {
      uint32_t n = uint32_t(text_.size());
      report(DiagId::RX1004, {n, n}, {header_description()}, {pending_->line_start, n});
    }
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
      report(DiagId::RX1013, {line.line_start, first.begin}, {}, {line.line_start, first.begin},
             true);

    // After an indentation error the levels are guesses: stay quiet until the next line at
    // column 0 (the tree's errors in between are the same problem's).
    if (line.column == 0) indentation_error_ = false;
    bool reported = false;
    if (line.column > top.column) {
      if (!pending_) {
        report_indentation(DiagId::RX1007, first_span, {}, around);
        reported = true;
      }
      push({line.column, line.alt_column}, first_span);
    } else if (pending_ && pending_->requires_block) {
      report_indentation(DiagId::RX1004, first_span, {header_description()},
                         {pending_->line_start, line.end});
      reported = true;
    }
    if (line.column < levels_.back().column) {
      while (line.column < levels_.back().column) levels_.pop_back();
      if (line.column != levels_.back().column) {
        if (!reported) report_indentation(DiagId::RX1005, first_span, {}, around);
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
      report(DiagId::RX1027, {b.begin, b.end},
             {std::string(text(a)).substr(0, 24), std::string(text(b))},
             {line.line_start, line.end});
      return;
    }
  }

  static bool is_keyword(std::string_view w) {
    for (std::string_view k :
         {"and",    "as",     "assert", "break",   "class",    "continue", "def",    "del",
          "elif",   "else",   "except", "finally", "for",      "from",     "global", "if",
          "import", "in",     "is",     "lambda",  "nonlocal", "not",      "or",     "pass",
          "raise",  "return", "try",    "while",   "with",     "yield",    "async",  "await"})
      if (w == k) return true;
    return false;
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
      report(DiagId::RX1025, {first.begin, first.end}, {std::string(word), "if"},
             {line.line_start, line.end});
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
      report(DiagId::RX1023, {t.begin, t.end}, {what}, {line.line_start, line.end});
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
    report(DiagId::RX1024, {name.begin, tz_.tokens[line.last - 1].end}, {std::string(text(name))},
           {line.line_start, line.end});
  }

  void check_comprehension(const LogicalLine& line) {
    for (uint32_t k = line.first; k < line.last; ++k) {
      const Token& t = tz_.tokens[k];
      if (t.depth > 0 && t.kind == Tok::Name && text(t) == "for") {
        report(DiagId::RX1022, {t.begin, t.end}, {}, {line.line_start, line.end});
        return;
      }
    }
  }

  void report_indentation(DiagId id, Span at, std::vector<std::string> args, Span extent) {
    if (!indentation_error_) report(id, at, std::move(args), extent);
    indentation_error_ = true;
  }

  void push(Level level, Span at) {
    levels_.push_back(level);
    if (levels_.size() == kMaxIndentLevels + 2 && !too_deep_) {
      too_deep_ = true;
      report(DiagId::RX1010, at, {std::to_string(kMaxIndentLevels)}, at, true);
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
    report(DiagId::RX1003, {last.end, last.end}, {context}, {line.line_start, line.end});
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
        report(DiagId::RX1021, {t.begin, t.end}, {}, {line.line_start, line.end});
        return;
      }
      if (!needs_operand(op)) continue;
      if ((op == "*" || op == "**") && before_close) continue;  // '*args': the parser says more
      report(DiagId::RX1012, {t.begin, t.end}, {std::string(op)}, {line.line_start, line.end});
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

  void report(DiagId id, Span at, std::vector<std::string> args, Span extent,
              bool certain = false) {
    // After a string left open, Python stops; the brackets and lines we see are guesses.
    if (!certain && at.begin > tz_.first_unterminated_string) return;
    tz_.problems.push_back({id, at, std::move(args), extent, certain});
  }

  std::string_view text_;
  Tokenizer& tz_;
  std::vector<Level> levels_;
  std::optional<Header> pending_;
  bool too_deep_ = false;
  bool indentation_error_ = false;
};

// ---------------------------------------------------------------------------- tree walk

// Where the tree shows an error.
struct Site {
  enum Type { Error, Missing, Hidden } type;
  TSNode node;
  Span span;
  Kind parent;
};

std::string first_line(std::string_view text) {
  std::string t(text.substr(0, text.find('\n')));
  if (t.size() > 60) t = t.substr(0, 57) + "...";
  return t;
}

// One iterative walk (any depth is safe): comments, error sites, nesting depth, and the checks
// of what the grammar accepts but the format does not.
class TreeWalker {
 public:
  TreeWalker(const cst::Cst& cst, std::vector<printer::Comment>& comments)
      : cst_(cst), comments_(comments) {}

  std::vector<Site> sites;
  std::vector<Problem> problems;
  bool too_deep = false;

  void run(TSNode root) {
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    std::vector<Kind> path;  // kinds of the ancestors of the current node
    for (;;) {
      TSNode node = ts_tree_cursor_current_node(&cursor);
      bool descend = visit(node, path.empty() ? Kind::Other : path.back());
      if (path.size() > kMaxTreeDepth && !too_deep) {
        too_deep = true;
        Span at = cst_.span(node);
        problems.push_back({DiagId::RX1010, at, {std::to_string(kMaxTreeDepth)}, at, true, at});
        descend = false;
      }
      if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
        path.push_back(cst_.kind(node));
        continue;
      }
      while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          ts_tree_cursor_delete(&cursor);
          return;
        }
        path.pop_back();
      }
    }
  }

 private:
  // Returns whether to look inside the node.
  bool visit(TSNode node, Kind parent) {
    if (ts_node_is_missing(node)) {
      uint32_t at = ts_node_start_byte(node);
      sites.push_back({Site::Missing, node, {at, at}, parent});
      return false;
    }
    if (cst::is_error(node)) {
      sites.push_back({Site::Error, node, cst_.span(node), parent});
      return false;
    }
    Kind kind = cst_.kind(node);
    if (kind == Kind::comment) {
      comments_.push_back({cst_.span(node), std::string(cst_.text(node))});
      return false;
    }
    if (ts_node_has_error(node) && !has_error_child(node))
      sites.push_back({Site::Hidden, node, cst_.span(node), parent});
    if (kind == Kind::argument_list) check_argument_order(node);
    if (kind == Kind::binding) check_chained_assignment(node);
    return ts_node_child_count(node) > 0;
  }

  static bool has_error_child(TSNode node) {
    uint32_t count = ts_node_child_count(node);
    for (uint32_t i = 0; i < count; ++i)
      if (ts_node_has_error(ts_node_child(node, i))) return true;
    return false;
  }

  void check_argument_order(TSNode list) {
    TSNode keyword{};
    uint32_t count = ts_node_named_child_count(list);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode arg = ts_node_named_child(list, i);
      Kind kind = cst_.kind(arg);
      if (kind == Kind::comment || cst::is_error(arg)) continue;
      if (kind == Kind::keyword_argument) {
        if (ts_node_is_null(keyword)) keyword = arg;
        continue;
      }
      if (ts_node_is_null(keyword)) continue;
      Span at = cst_.span(arg);
      problems.push_back({DiagId::RX1014,
                          at,
                          {first_line(cst_.text(arg)), first_line(cst_.text(keyword))},
                          at,
                          true,
                          cst_.span(list)});
      return;
    }
  }

  void check_chained_assignment(TSNode binding) {
    TSNode right = cst_.field(binding, Field::right);
    if (!cst_.is(right, Kind::binding)) return;
    // Only the outermost binding reports; the inner one is its `right`.
    std::string chain = first_line(cst_.text(cst_.field(binding, Field::left)));
    for (TSNode b = right; cst_.is(b, Kind::binding); b = cst_.field(b, Field::right))
      chain += " = " + first_line(cst_.text(cst_.field(b, Field::left)));
    Span at = cst_.span(right);
    problems.push_back({DiagId::RX1015, at, {chain + " = ..."}, at, true, cst_.span(binding)});
  }

  const cst::Cst& cst_;
  std::vector<printer::Comment>& comments_;
};

// ---------------------------------------------------------------------------- combination

std::string describe_token(std::string_view text) {
  if (text.empty()) return "end of file";
  size_t cut = std::min(text.find_first_of("\r\n"), size_t(24));
  if (cut < text.size()) return "'" + std::string(text.substr(0, cut)) + "...'";
  return "'" + std::string(text) + "'";
}

std::string describe_missing(std::string_view token, Kind parent) {
  if (token == "_indent" || token == "indent") return "an indented block";
  if (token == "_newline" || token == "newline") return "a line break";
  if (token == "_dedent" || token == "dedent") return "a dedent";
  if (token == "identifier") {
    switch (parent) {
      case Kind::relax_function:
      case Kind::prim_function:
      case Kind::function_definition: return "the function name";
      case Kind::module_class:
      case Kind::class_definition: return "the class name";
      case Kind::parameter:
      case Kind::aliased_import:
      case Kind::dotted_name:
      case Kind::attribute:
      case Kind::keyword_argument: return "a name";
      default: return "an expression";  // tree-sitter fills any missing expression with a name
    }
  }
  if (token.empty() || !(token[0] >= 'a' && token[0] <= 'z')) return "'" + std::string(token) + "'";
  return std::string(token);
}

const char* colon_context(Kind parent) {
  switch (parent) {
    case Kind::relax_function:
    case Kind::prim_function:
    case Kind::function_definition: return "function signature";
    case Kind::module_class:
    case Kind::class_definition: return "class name";
    case Kind::if_statement: return "'if' condition";
    case Kind::elif_clause: return "'elif' condition";
    case Kind::else_clause: return "'else'";
    case Kind::for_statement: return "'for' clause";
    case Kind::while_statement: return "'while' condition";
    case Kind::with_statement:
    case Kind::dataflow_block: return "'with' item";
    case Kind::lambda: return "lambda parameters";
    default: return nullptr;
  }
}

class Combiner {
 public:
  Combiner(const cst::Cst& cst, TSNode root, Tokenizer& tz, TreeWalker& tree)
      : cst_(cst), text_(cst.source()), tz_(tz), tree_(tree) {
    collect_units(root);
    collect_regions();
  }

  void run(DiagnosticSink& sink, SyntaxCheck& result) {
    std::vector<Problem> problems = std::move(tz_.problems);
    problems.insert(problems.end(), tree_.problems.begin(), tree_.problems.end());
    std::stable_sort(problems.begin(), problems.end(),
                     [](const Problem& a, const Problem& b) { return a.at.begin < b.at.begin; });
    site_units_.reserve(tree_.sites.size());
    for (const Site& s : tree_.sites) {
      int u = unit_of(s.span.begin);
      site_units_.push_back(u);
      if (u >= 0) unit_has_site_[u] = true;
    }
    for (Problem& p : problems) consider(p);
    for (size_t i = 0; i < tree_.sites.size(); ++i) fallback(tree_.sites[i], site_units_[i]);
    emit(sink, result);
  }

 private:
  struct Reported {
    Diagnostic diagnostic;
    Span extent;  // line-extended
  };

  void consider(Problem& p) {
    Span lines = line_extended(p.extent);
    int u = unit_of(p.at.begin);
    bool tree_agrees = (u >= 0 && unit_has_site_[u]) || intersects_site(lines);
    if (!p.certain && !tree_agrees) return;
    // An inference inside what an earlier problem spoils is likely its consequence (a stray
    // ')' makes the next line look over-indented).
    if (!p.certain && std::any_of(quarantined_.begin(), quarantined_.end(), [&](Span q) {
          return q.begin <= p.at.begin && p.at.begin < q.end;
        }))
      return;
    if (u >= 0) unit_has_problem_[u] = true;
    std::optional<Span> quarantine;  // inconsistent tabs (RX1013) spoil nothing
    if (p.id != DiagId::RX1013) {
      if (!p.quarantine.empty()) {
        quarantine = p.quarantine;  // a tree-level problem in an otherwise good tree
      } else if (!tree_agrees) {
        quarantine = p.extent;
      } else {
        quarantine = spoiled_by(p.at.begin, u, lines);
      }
    }
    int region = top_region(p.at.begin);
    if (region >= 0) region_reports_.push_back({region, p.at.begin});
    if (quarantine) problem_quarantines_.push_back(*quarantine);
    add(make_diagnostic(p.id, p.at, std::move(p.args)), lines, quarantine);
  }

  // A tree error that no problem explains gets the generic message, unless something was
  // already reported before it in the same top-level item: after a first error, tree-sitter's
  // recovery often produces more ERROR regions (a lost decorator, a class cut short) that are
  // the same problem's. What the lowering says around it is dropped either way.
  void fallback(const Site& site, int u) {
    Span lines = line_extended(site.span);
    quarantined_.push_back(spoiled_by(site.span.begin, u, lines));
    if (u >= 0 && (unit_has_problem_[u] || unit_has_fallback_[u])) return;
    for (const Reported& r : reported_)
      if (overlaps(r.extent, lines)) return;
    int region = top_region(site.span.begin);
    for (auto [r, at] : region_reports_)
      if (r == region && region >= 0 && at <= lines.end) return;
    // The parser's state is disturbed right after a problem: an ERROR that starts at the first
    // token after what a reported problem spoils is that problem's echo.
    auto next = first_token_at(site.span.begin);
    if (next != tz_.tokens.begin()) {
      uint32_t previous_end = std::prev(next)->end;
      for (Span q : problem_quarantines_)
        if (q.begin < previous_end && previous_end <= q.end) return;
    }
    if (u >= 0) unit_has_fallback_[u] = true;
    if (region >= 0) region_reports_.push_back({region, site.span.begin});
    add(describe_site(site), lines, std::nullopt);
  }

  // What a syntax error at `offset` spoils for the lowering: its unit in the tree, and the
  // outermost 'def' around it as the indentation shows it (with its decorators), since a broken
  // tree may have cut the definition in pieces.
  Span spoiled_by(uint32_t offset, int u, Span lines) const {
    Span s = u >= 0 ? join(units_[u], lines) : lines;
    int idx = line_index(offset);
    if (idx < 0) return indentation_suite(s);
    int start = idx;
    uint32_t column = tz_.lines[idx].column;
    for (int j = idx; j >= 0; --j) {
      const LogicalLine& l = tz_.lines[j];
      if (l.column > column || (l.column == column && j != idx)) continue;
      column = l.column;
      std::string_view first = token_text(tz_.tokens[l.first]);
      if (first == "def") start = j;
      if (first == "class" || column == 0) break;
    }
    while (start > 0 && tz_.lines[start - 1].column == tz_.lines[start].column &&
           token_text(tz_.tokens[tz_.lines[start - 1].first]) == "@")
      --start;
    int last = idx;  // a decorator spoils the definition it decorates
    while (last + 1 < int(tz_.lines.size()) &&
           token_text(tz_.tokens[tz_.lines[last].first]) == "@" &&
           tz_.lines[last + 1].column == tz_.lines[last].column)
      ++last;
    s = join(s, {tz_.lines[start].line_start, tz_.lines[last].end});
    return indentation_suite(s);
  }

  // Logical lines split into top-level items at column 0 (a decorator line joins the next).
  void collect_regions() {
    int region = -1;
    for (size_t i = 0; i < tz_.lines.size(); ++i) {
      bool after_decorator = i > 0 && tz_.lines[i - 1].column == 0 &&
                             token_text(tz_.tokens[tz_.lines[i - 1].first]) == "@";
      if (i == 0 || (tz_.lines[i].column == 0 && !after_decorator)) ++region;
      region_of_line_.push_back(region);
    }
  }

  int line_index(uint32_t offset) const {
    auto it = std::upper_bound(tz_.lines.begin(), tz_.lines.end(), offset,
                               [](uint32_t o, const LogicalLine& l) { return o < l.line_start; });
    return int(it - tz_.lines.begin()) - 1;
  }

  int top_region(uint32_t offset) const {
    int idx = line_index(offset);
    return idx < 0 ? -1 : region_of_line_[idx];
  }

  std::string_view token_text(const Token& t) const {
    return text_.substr(t.begin, t.end - t.begin);
  }

  Diagnostic describe_site(const Site& site) const {
    if (site.type == Site::Missing) {
      std::string_view token = ts_node_type(site.node);
      if (token == ":")
        if (const char* context = colon_context(site.parent))
          return make_diagnostic(DiagId::RX1003, site.span, {context});
      return make_diagnostic(DiagId::RX1002, site.span, {describe_missing(token, site.parent)});
    }
    // The parser gave up at the first token of an ERROR region; for a missing hidden token, at
    // the token after the node.
    uint32_t at = site.type == Site::Error ? site.span.begin : site.span.end;
    if (site.type == Site::Error && only_complete_children(site.node)) {
      // `y = 1 2`: the parser wrapped the good '1' in the ERROR; the culprit follows it.
      uint32_t end = site.span.end;
      auto next = first_token_at(end);
      if (next != tz_.tokens.end() && !has_newline(end, next->begin)) at = end;
    }
    auto it = first_token_at(at);
    if (it == tz_.tokens.end()) {
      uint32_t n = uint32_t(text_.size());
      return make_diagnostic(DiagId::RX1001, {n, n}, {"end of file"});
    }
    std::string_view token = text_.substr(it->begin, it->end - it->begin);
    return make_diagnostic(DiagId::RX1001, {it->begin, it->end}, {describe_token(token)});
  }

  std::vector<Token>::const_iterator first_token_at(uint32_t offset) const {
    return std::lower_bound(tz_.tokens.begin(), tz_.tokens.end(), offset,
                            [](const Token& t, uint32_t o) { return t.begin < o; });
  }

  bool has_newline(uint32_t begin, uint32_t end) const {
    return text_.substr(begin, end - begin).find('\n') != std::string_view::npos;
  }

  static bool only_complete_children(TSNode error) {
    uint32_t count = ts_node_child_count(error);
    if (count != 1) return false;  // `with R.dataflow() as d`: the first token is the culprit
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_child(error, i);
      if (!ts_node_is_named(child) || cst::is_error(child) || ts_node_has_error(child))
        return false;
    }
    return true;
  }

  void add(Diagnostic d, Span extent, std::optional<Span> quarantine) {
    if (quarantine) quarantined_.push_back(*quarantine);
    reported_.push_back({std::move(d), extent});
  }

  void emit(DiagnosticSink& sink, SyntaxCheck& result) {
    std::stable_sort(reported_.begin(), reported_.end(), [](const Reported& a, const Reported& b) {
      return a.diagnostic.span.begin < b.diagnostic.span.begin;
    });
    size_t errors = 0;
    for (Reported& r : reported_) {
      if (r.diagnostic.severity == Severity::Error && ++errors > kMaxSyntaxErrors) {
        sink.report(make_diagnostic(DiagId::RX1019, r.diagnostic.span));
        // Nothing after this point is checked: lowering diagnostics there are noise too.
        quarantined_.push_back({r.diagnostic.span.begin, uint32_t(text_.size()) + 1});
        break;
      }
      sink.report(std::move(r.diagnostic));
    }
    result.quarantined = std::move(quarantined_);
  }

  // Units are the definitions a syntax error spoils: the top-level statements, and the
  // members of a class (plus the class header).
  void collect_units(TSNode root) {
    for (TSNode child : children(root)) {
      Kind kind = cst_.kind(child);
      if (kind == Kind::comment) continue;
      TSNode body = (kind == Kind::module_class || kind == Kind::class_definition)
                        ? cst_.field(child, Field::body)
                        : TSNode{};
      if (ts_node_is_null(body)) {
        units_.push_back(cst_.span(child));
        continue;
      }
      units_.push_back({ts_node_start_byte(child), ts_node_start_byte(body)});
      for (TSNode member : children(body))
        if (cst_.kind(member) != Kind::comment) units_.push_back(cst_.span(member));
    }
    unit_has_site_.assign(units_.size(), false);
    unit_has_problem_.assign(units_.size(), false);
    unit_has_fallback_.assign(units_.size(), false);
  }

  static std::vector<TSNode> children(TSNode node) {
    std::vector<TSNode> out;
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        TSNode child = ts_tree_cursor_current_node(&cursor);
        if (ts_node_is_named(child) || cst::is_error(child)) out.push_back(child);
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    return out;
  }

  int unit_of(uint32_t offset) const {
    auto it = std::upper_bound(units_.begin(), units_.end(), offset,
                               [](uint32_t o, const Span& s) { return o < s.begin; });
    if (it == units_.begin()) return -1;
    --it;
    if (offset >= it->end && !(it->empty() && offset == it->begin)) return -1;
    return int(it - units_.begin());
  }

  bool intersects_site(Span lines) const {
    // Sites are disjoint and in document order.
    auto it = std::lower_bound(tree_.sites.begin(), tree_.sites.end(), lines.begin,
                               [](const Site& s, uint32_t o) { return s.span.end < o; });
    return it != tree_.sites.end() && it->span.begin <= lines.end;
  }

  static bool overlaps(Span a, Span b) { return a.begin <= b.end && b.begin <= a.end; }
  static Span join(Span a, Span b) { return {std::min(a.begin, b.begin), std::max(a.end, b.end)}; }

  // From the start of the first line to the end of the last line of `s`.
  Span line_extended(Span s) const {
    uint32_t begin = std::min<uint32_t>(s.begin, uint32_t(text_.size()));
    while (begin > 0 && text_[begin - 1] != '\n') --begin;
    uint32_t end = std::max(s.end, s.begin);
    while (end < text_.size() && text_[end] != '\n') ++end;
    return {begin, end};
  }

  // Extends `s` over the following logical lines indented deeper than its first line: what
  // the indentation says belongs to the same definition, whatever the broken tree says.
  Span indentation_suite(Span s) const {
    const auto& lines = tz_.lines;
    auto it = std::upper_bound(lines.begin(), lines.end(), s.begin,
                               [&](uint32_t o, const LogicalLine& l) { return o < l.line_start; });
    if (it == lines.begin()) return s;
    uint32_t column = std::prev(it)->column;
    for (; it != lines.end(); ++it) {
      if (it->line_start < s.end) continue;
      if (it->column <= column) break;
      s.end = std::max(s.end, it->end);
    }
    return s;
  }

  const cst::Cst& cst_;
  std::string_view text_;
  Tokenizer& tz_;
  TreeWalker& tree_;
  std::vector<Span> units_;  // sorted, disjoint
  std::vector<int> site_units_;
  std::vector<bool> unit_has_site_, unit_has_problem_, unit_has_fallback_;
  std::vector<Reported> reported_;
  std::vector<int> region_of_line_;
  std::vector<Span> problem_quarantines_;  // of the reported problems (not of tree errors)
  std::vector<std::pair<int, uint32_t>> region_reports_;  // (top-level item, offset) reported
  std::vector<Span> quarantined_;
};

}  // namespace

SyntaxCheck check_syntax(const cst::Cst& cst, TSNode root, DiagnosticSink& sink,
                         std::vector<printer::Comment>& comments) {
  SyntaxCheck result;
  Tokenizer tokenizer(cst.source());
  tokenizer.run();
  LineChecker(cst.source(), tokenizer).run();
  TreeWalker tree(cst, comments);
  tree.run(root);
  result.lowerable = !tree.too_deep;
  Combiner(cst, root, tokenizer, tree).run(sink, result);
  return result;
}

}  // namespace raxc::frontend
