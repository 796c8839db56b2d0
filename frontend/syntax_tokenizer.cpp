// The tokenizer part of the syntax check (frontend/syntax_parts.h): a Python-style tokenizer,
// just precise enough to find brackets, logical lines, indentation, string literals and invalid
// characters, over a window of the text. It never fails: it records problems and goes on. The
// problems it finds are facts ("certain"): an invalid character is invalid wherever it is.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "frontend/syntax_parts.h"

namespace raxc::frontend::syntax {

uint32_t Tokens::line_number(uint32_t offset) const {
  return base_line +
         uint32_t(std::upper_bound(newlines.begin(), newlines.end(), offset) - newlines.begin()) +
         1;
}

namespace {

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

// The tokenizer proper. It sees the text up to the window's end only, so a window tokenizes
// exactly as the same text does inside the whole file when the window starts afresh.
class Tokenizer {
 public:
  Tokenizer(std::string_view text, const Window& window)
      : text_(text.substr(0, window.end)), n_(window.end), window_(window) {
    out.base_line = window.base_line;
  }

  Tokens out;

  void run() {
    uint32_t i = window_.begin;
    while (i > 0 && text_[i - 1] != '\n' && text_[i - 1] != '\r') --i;  // its line's start
    if (i == 0 && text_.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
    i = start_physical_line(i);
    while (i < n_) i = step(i);
    close_line();
    close_brackets();
    out.open_at_end = unterminated_string_;
    out.problems = std::move(problems);
    out.tokens = std::move(tokens);
    out.lines = std::move(lines);
    out.newlines = std::move(newlines_);
  }

  uint32_t line_number(uint32_t offset) const {
    return window_.base_line +
           uint32_t(std::upper_bound(newlines_.begin(), newlines_.end(), offset) -
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
    if (!brackets_.empty() && !starts_unit(i)) return i;  // implicit line joining
    close_line();
    close_brackets();
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
    report(diag::CharacterAfterLineContinuation{}, {i, i + 1}, {i, i + 1}, true);
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
      report(diag::ReservedPythonKeyword{.keyword = std::string(word)}, {i, j}, {i, j}, true);
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
      report(diag::FStringUnsupported{}, {start, quote + 1}, {start, quote + 1}, true);
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
      if (!unterminated_string_) out.first_unterminated_string = start;
      unterminated_string_ = true;
      Span opening{start, quote + (triple ? 3 : 1)};
      report(diag::UnterminatedLiteral{.literal_kind = triple ? "triple-quoted string" : "string"},
             opening, {start, j}, true);
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
      report_bracket(diag::UnmatchedClosingBracket{.bracket = std::string(1, c)}, {i, i + 1},
                     {i, i + 1});
      add(Tok::Invalid, i, i + 1);  // a stray closer closes nothing
      return i + 1;
    } else if (brackets_.back().c == open) {
      brackets_.pop_back();
    } else {
      OpenBracket top = brackets_.back();
      report_bracket(diag::MismatchedClosingBracket{.closing = std::string(1, c),
                                                    .opening = std::string(1, top.c),
                                                    .opening_line = line_number(top.at)},
                     {i, i + 1}, {top.at, i + 1});
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

  // Whether the physical line starting at `i` starts a top-level unit (Window::unit_starts).
  bool starts_unit(uint32_t i) const {
    while (i < n_ && (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\f')) ++i;
    return std::binary_search(window_.unit_starts.begin(), window_.unit_starts.end(), i);
  }

  // A bracket still open at the end of the window or at the start of a unit: reported once
  // (the innermost), its extent up to the last token.
  void close_brackets() {
    if (brackets_.empty()) return;
    const OpenBracket& open = brackets_.back();
    uint32_t last = tokens.empty() ? open.at + 1 : tokens.back().end;
    report_bracket(diag::UnclosedBracket{.bracket = std::string(1, open.c)}, {open.at, open.at + 1},
                   {open.at, last});
    brackets_.clear();
  }

  // One bracket problem per logical line, and none once a string literal was left open (its
  // brackets are lost in the string): the rest would be the same problem's echoes.
  void report_bracket(DiagPayload what, Span at, Span extent) {
    if (bracket_error_line_ == lines.size() || unterminated_string_) return;
    bracket_error_line_ = lines.size();
    report(std::move(what), at, extent, true);
  }

  // The length of the longest of Python's operators and delimiters at i (not brackets), 0 when
  // none starts there: **= //= >>= <<= ... -> ** // << >> <= >= == != += -= *= /= %= &= |= ^=
  // @= := + - * / % @ & | ^ ~ < > = . , : ;. By the first character: comparing the list in
  // turn cost a re-check of the edited definition 0.3 M instructions a keystroke.
  uint32_t operator_length(uint32_t i) const {
    char c = text_[i];
    char d = i + 1 < n_ ? text_[i + 1] : '\0', e = i + 2 < n_ ? text_[i + 2] : '\0';
    switch (c) {
      case '*':
      case '/':
      case '<':
      case '>':
        if (d == c) return e == '=' ? 3 : 2;
        return d == '=' ? 2 : 1;
      case '-': return d == '>' || d == '=' ? 2 : 1;
      case '.': return d == '.' && e == '.' ? 3 : 1;
      case '!': return d == '=' ? 2 : 0;
      case '=':
      case '+':
      case '%':
      case '&':
      case '|':
      case '^':
      case '@':
      case ':': return d == '=' ? 2 : 1;
      case '~':
      case ',':
      case ';': return 1;
      default: return 0;
    }
  }

  // A run of characters no token can start with: one diagnostic for the run (a binary file
  // gives one per line, not one per byte).
  uint32_t invalid(uint32_t i) {
    uint32_t cp = 0;
    uint32_t len = utf8_length(text_, i, cp);
    if (len == 0) {
      report(diag::InvalidUtf8Byte{.byte_hex = hex_byte(text_[i])}, {i, i + 1}, {i, i + 1}, true);
    } else {
      report(diag::InvalidCharacter{.character = describe_code_point(text_.substr(i, len), cp)},
             {i, i + len}, {i, i + len}, true);
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
        report(diag::InvalidCharacter{.character = describe_code_point("", 0)}, {k, k + 1},
               {k, k + 1}, true);
        return;
      }
      if (c < 0x80) continue;
      uint32_t cp;
      uint32_t len = utf8_length(text_, k, cp);
      if (len == 0) {
        report(diag::InvalidUtf8Byte{.byte_hex = hex_byte(c)}, {k, k + 1}, {k, k + 1}, true);
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

  void report(DiagPayload what, Span at, Span extent, bool certain = true) {
    problems.push_back({std::move(what), at, extent, certain});
  }

  std::vector<Token> tokens;
  std::vector<LogicalLine> lines;
  std::vector<Problem> problems;
  std::string_view text_;
  uint32_t n_;
  const Window& window_;
  std::vector<OpenBracket> brackets_;
  std::vector<uint32_t> newlines_;  // offsets of '\n' bytes seen so far, increasing
  bool line_open_ = false;
  uint32_t line_start_ = 0, column_ = 0, alt_column_ = 0;
  size_t bracket_error_line_ = size_t(-1);  // index in `lines` of the last bracket problem
  bool unterminated_string_ = false;
};

}  // namespace

Tokens tokenize(std::string_view text, const Window& window) {
  Tokenizer tokenizer(text, window);
  tokenizer.run();
  return std::move(tokenizer.out);
}

}  // namespace raxc::frontend::syntax
