#include "frontend/lower/literals.h"

#include <cstdlib>
#include <string>

namespace raxc::lower {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += char(code);
  } else if (code < 0x800) {
    out += char(0xC0 | (code >> 6));
    out += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += char(0xE0 | (code >> 12));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  } else {
    out += char(0xF0 | (code >> 18));
    out += char(0x80 | ((code >> 12) & 0x3F));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  }
}

// Reads exactly `count` hex digits at body[i]; -1 when they are not all there.
int64_t read_hex(std::string_view body, size_t i, size_t count) {
  if (i + count > body.size()) return -1;
  int64_t value = 0;
  for (size_t k = 0; k < count; ++k) {
    int d = hex_digit(body[i + k]);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

// Decodes one escape starting at body[i] == '\\'; advances i past it. `\xHH` yields a raw byte:
// the printer escapes each byte of a UTF-8 sequence separately, so the bytes re-assemble.
bool decode_escape(std::string_view body, size_t& i, bool is_bytes, std::string& out,
                   std::string* error) {
  if (i + 1 >= body.size()) {
    if (error) *error = "a string cannot end with a lone backslash";
    return false;
  }
  char c = body[i + 1];
  i += 2;
  switch (c) {
    case '\n': return true;  // line continuation inside a string
    case '\r':
      if (i < body.size() && body[i] == '\n') ++i;
      return true;
    case '\\': out += '\\'; return true;
    case '\'': out += '\''; return true;
    case '"': out += '"'; return true;
    case 'a': out += '\a'; return true;
    case 'b': out += '\b'; return true;
    case 'f': out += '\f'; return true;
    case 'n': out += '\n'; return true;
    case 'r': out += '\r'; return true;
    case 't': out += '\t'; return true;
    case 'v': out += '\v'; return true;
    case 'x': {
      int64_t v = read_hex(body, i, 2);
      if (v < 0) {
        if (error) *error = "'\\x' must be followed by two hex digits";
        return false;
      }
      out += char(v);
      i += 2;
      return true;
    }
    case 'u':
    case 'U': {
      size_t count = c == 'u' ? 4 : 8;
      int64_t v = is_bytes ? -2 : read_hex(body, i, count);
      if (v == -2) {  // in bytes literals \u is not an escape
        out += '\\';
        out += c;
        return true;
      }
      if (v < 0 || v > 0x10FFFF) {
        if (error)
          *error = std::string("'\\") + c + "' must be followed by " + std::to_string(count) +
                   " hex digits of a valid code point";
        return false;
      }
      append_utf8(out, uint32_t(v));
      i += count;
      return true;
    }
    case 'N':
      if (error) *error = "'\\N{...}' escapes are not supported";
      return false;
    default:
      if (c >= '0' && c <= '7') {
        int value = c - '0';
        for (int k = 0; k < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++k, ++i)
          value = value * 8 + (body[i] - '0');
        if (value > 0xFF || is_bytes) {
          out += char(value & 0xFF);
        } else {
          append_utf8(out, uint32_t(value));
        }
        return true;
      }
      // Python keeps unknown escapes verbatim.
      out += '\\';
      out += c;
      return true;
  }
}

// Decodes the text of one string token (prefix, quotes, body).
std::optional<std::string> decode_one(std::string_view text, std::string* error) {
  size_t p = 0;
  bool raw = false, bytes = false;
  while (p < text.size() && text[p] != '"' && text[p] != '\'') {
    char c = text[p++];
    if (c == 'r' || c == 'R') {
      raw = true;
    } else if (c == 'b' || c == 'B') {
      bytes = true;
    } else if (c == 'u' || c == 'U') {
      // no-op prefix
    } else {
      if (error)
        *error = (c == 'f' || c == 'F') ? "f-strings are not supported"
                                        : std::string("unknown string prefix '") + c + "'";
      return std::nullopt;
    }
  }
  std::string_view rest = text.substr(p);
  size_t quote = 0;
  if (rest.size() >= 6 && (rest.substr(0, 3) == "\"\"\"" || rest.substr(0, 3) == "'''") &&
      rest.substr(rest.size() - 3) == rest.substr(0, 3)) {
    quote = 3;
  } else if (rest.size() >= 2 && rest.front() == rest.back()) {
    quote = 1;
  } else {
    if (error) *error = "unterminated string literal";
    return std::nullopt;
  }
  std::string_view body = rest.substr(quote, rest.size() - 2 * quote);
  if (raw) return std::string(body);
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();) {
    if (body[i] != '\\') {
      out += body[i++];
      continue;
    }
    if (!decode_escape(body, i, bytes, out, error)) return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<std::string> decode_string(const cst::Cst& cst, TSNode node, std::string* error) {
  if (cst.is(node, cst::Kind::concatenated_string)) {
    std::string result;
    for (TSNode part : cst.named_children(node)) {
      auto piece = decode_string(cst, part, error);
      if (!piece) return std::nullopt;
      result += *piece;
    }
    return result;
  }
  return decode_one(cst.text(node), error);
}

std::optional<IntLiteral> parse_int_literal(std::string_view text) {
  unsigned base = 10;
  if (text.size() > 2 && text[0] == '0') {
    char p = char(text[1] | 0x20);
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) text = text.substr(2);
    // Python allows an underscore right after the base prefix: 0x_ff.
    if (base != 10 && !text.empty() && text[0] == '_') text = text.substr(1);
  }
  if (text.empty()) return std::nullopt;
  IntLiteral result{0, false};
  bool previous_underscore = true;  // rejects a leading '_'
  bool leading_zero = base == 10 && text[0] == '0';
  for (char c : text) {
    if (c == '_') {
      if (previous_underscore) return std::nullopt;
      previous_underscore = true;
      continue;
    }
    previous_underscore = false;
    int d = hex_digit(c);
    if (d < 0 || unsigned(d) >= base) return std::nullopt;
    // Python forbids leading zeros on nonzero decimal literals ("0123").
    if (leading_zero && d != 0) return std::nullopt;
    if (result.magnitude > (UINT64_MAX - unsigned(d)) / base) result.overflow = true;
    result.magnitude = result.magnitude * base + unsigned(d);
  }
  if (previous_underscore) return std::nullopt;  // trailing '_'
  return result;
}

std::optional<double> parse_float_literal(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  bool digit_seen = false, exponent = false;
  char previous = 0;
  for (char c : text) {
    if (c == '_') {
      if (!(previous >= '0' && previous <= '9')) return std::nullopt;
      previous = c;
      continue;
    }
    if (previous == '_' && !(c >= '0' && c <= '9')) return std::nullopt;
    if (c >= '0' && c <= '9') {
      digit_seen = true;
    } else if (c == 'e' || c == 'E') {
      if (exponent || !digit_seen) return std::nullopt;
      exponent = true;
    } else if (c != '.' && c != '+' && c != '-') {
      return std::nullopt;
    }
    clean += c;
    previous = c;
  }
  if (!digit_seen || previous == '_') return std::nullopt;
  // Hex floats and "inf"/"nan" are not Python literals; strtod would accept them.
  char* end = nullptr;
  double value = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return std::nullopt;
  return value;  // HUGE_VAL on overflow: ±inf as documented
}

}  // namespace raxc::lower
