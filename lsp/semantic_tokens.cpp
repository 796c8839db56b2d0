#include "lsp/semantic_tokens.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "lsp/jsonrpc.h"

namespace raxc::lsp {
namespace {

using nlohmann::json;

// Indices into the legend; keep in sync with semantic_tokens_legend().
enum TokenType : uint32_t {
  kNamespace,
  kType,
  kFunction,
  kParameter,
  kVariable,
  kTypeParameter,
  kDecorator,
  kEnumMember
};
constexpr uint32_t kDeclaration = 1u << 0;
constexpr uint32_t kDefaultLibrary = 1u << 1;
constexpr uint32_t kReadonly = 1u << 2;
constexpr uint32_t kDataflow = 1u << 3;
constexpr uint32_t kTir = 1u << 4;

struct Classified {
  Span span;
  uint32_t type;
  uint32_t modifiers;
};

bool is_script_namespace(std::string_view name) {
  return name == "R" || name == "T" || name == "I";
}

bool looks_like_dtype(std::string_view s) {
  static const std::unordered_set<std::string_view> exact = {"bool", "handle", "void", ""};
  if (exact.count(s) && !s.empty()) return true;
  for (std::string_view prefix : {"int", "uint", "float", "bfloat", "e4m3", "e5m2"}) {
    if (s.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = s.substr(prefix.size());
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    rest.remove_prefix(digits);
    if (rest.empty() || (rest[0] == 'x' && rest.size() > 1)) return true;
    if (prefix == "e4m3" || prefix == "e5m2") return true;
  }
  return false;
}

// `R.add`, `R.Tensor`, `@R.function`: the attribute after a script namespace.
Classified classify_library(const std::string& text, const frontend::Token& token) {
  size_t object_begin =
      token.span.begin >= token.object.size() + 1 ? token.span.begin - token.object.size() - 1 : 0;
  bool decorator = object_begin > 0 && text[object_begin - 1] == '@';
  if (decorator) return {token.span, kDecorator, 0};
  const std::string& name = token.text;
  bool upper = !name.empty() && name[0] >= 'A' && name[0] <= 'Z';
  if (upper || (token.object == "T" && looks_like_dtype(name)))
    return {token.span, kType, kDefaultLibrary};
  // Operators, and R.dataflow / R.output / T.grid and the like.
  return {token.span, kFunction, kDefaultLibrary};
}

std::optional<Classified> classify_symbol(const analysis::Symbol& s, Span span) {
  uint32_t declaration = s.definition == span ? kDeclaration : 0u;
  switch (s.kind) {
    case analysis::SymbolKind::Param: return Classified{span, kParameter, declaration};
    case analysis::SymbolKind::Var:
      return Classified{span, kVariable,
                        declaration | (s.var && s.var->is_dataflow() ? kDataflow : 0u)};
    case analysis::SymbolKind::ShapeVar: return Classified{span, kTypeParameter, declaration};
    case analysis::SymbolKind::Function: return Classified{span, kFunction, declaration};
    case analysis::SymbolKind::PrimFunc: return Classified{span, kFunction, declaration | kTir};
    case analysis::SymbolKind::ExternFunc: return Classified{span, kFunction, declaration};
  }
  return std::nullopt;
}

// Lexical classes that need no name resolution: `R` / `T` / `I`, what follows them, dtypes.
std::optional<Classified> classify_lexical(const std::string& text, const frontend::Token& token) {
  using Kind = frontend::Token::Kind;
  if (token.kind == Kind::Attribute && is_script_namespace(token.object))
    return classify_library(text, token);
  if (token.kind == Kind::Identifier && is_script_namespace(token.text) &&
      token.span.end < text.size() && text[token.span.end] == '.')
    return Classified{token.span, kNamespace, kDefaultLibrary};
  return std::nullopt;
}

std::optional<Classified> classify_resolved(const frontend::Token& token,
                                            const std::optional<analysis::Symbol>& symbol) {
  if (symbol && symbol->name == token.text) return classify_symbol(*symbol, token.span);
  if (token.kind == frontend::Token::Kind::String && looks_like_dtype(token.text))
    return Classified{token.span, kEnumMember, kReadonly};
  return std::nullopt;
}

// Every token of `range` with its class: lexical ones first (no name resolution needed), then
// what the name resolves to (Engine::for_each_symbol resolves a whole range in one pass).
std::vector<Classified> classify_all(const analysis::Engine& engine, const Snapshot& snapshot,
                                     Span range) {
  std::vector<Classified> out;
  const std::string& text = snapshot.file->text();
  engine.for_each_symbol(
      snapshot.uri, range,
      [&](const frontend::Token& token, const std::optional<analysis::Symbol>& symbol) {
        if (token.span.empty()) return;
        if (auto c = classify_lexical(text, token)) {
          out.push_back(*c);
        } else if (auto r = classify_resolved(token, symbol)) {
          out.push_back(*r);
        }
      });
  return out;
}

// Positions of increasing offsets, each computed from the previous one on the same line:
// position_at() counts from the line start every time, quadratic on the long signature lines
// of printed modules.
class PositionWalker {
 public:
  PositionWalker(const SourceFile& file, PositionEncoding encoding)
      : file_(file), encoding_(encoding) {}

  Position at(uint32_t offset) {
    uint32_t line = file_.location(offset).line - 1;
    if (line != line_ || offset < offset_) {
      line_ = line;
      offset_ = file_.line_begin(line + 1);
      character_ = 0;
    }
    const std::string& text = file_.text();
    for (; offset_ < offset; ++offset_) {
      auto byte = static_cast<unsigned char>(text[offset_]);
      if (encoding_ == PositionEncoding::Utf8) {
        ++character_;
      } else if ((byte & 0xC0) != 0x80) {
        character_ += byte >= 0xF0 ? 2 : 1;  // a 4-byte sequence is a UTF-16 surrogate pair
      }
    }
    return {line_, character_};
  }

 private:
  const SourceFile& file_;
  PositionEncoding encoding_;
  uint32_t line_ = UINT32_MAX, offset_ = 0, character_ = 0;
};

}  // namespace

json semantic_tokens_legend() {
  return {{"tokenTypes",
           {"namespace", "type", "function", "parameter", "variable", "typeParameter", "decorator",
            "enumMember"}},
          {"tokenModifiers", {"declaration", "defaultLibrary", "readonly", "dataflow", "tir"}}};
}

json semantic_tokens(const Snapshot& snapshot, const json& params, const FeatureOptions& options,
                     bool ranged) {
  const SourceFile& file = *snapshot.file;
  Span range{0, file.size()};
  if (ranged) {
    auto parsed = params.contains("range") ? parse_range(file, params["range"], options.encoding)
                                           : std::nullopt;
    if (!parsed) throw RequestError{error_code::kInvalidParams, "missing or invalid range"};
    range = *parsed;
  }
  json data = json::array();
  if (!snapshot.engine) return {{"data", data}};
  std::vector<Classified> tokens;
  {
    std::lock_guard lock(snapshot.query_mutex);
    const frontend::Document* document = snapshot.engine->document(snapshot.uri);
    if (!document) return {{"data", data}};
    tokens = classify_all(*snapshot.engine, snapshot, range);
  }
  std::sort(tokens.begin(), tokens.end(),
            [](const Classified& a, const Classified& b) { return a.span.begin < b.span.begin; });
  Position previous{0, 0};
  uint32_t previous_end = 0;
  PositionWalker walker(file, options.encoding);
  for (const Classified& t : tokens) {
    if (t.span.begin < previous_end) continue;  // never overlap
    Position start = walker.at(t.span.begin);
    Position end = walker.at(t.span.end);
    if (end.line != start.line || end.character <= start.character) continue;  // one line each
    uint32_t delta_line = start.line - previous.line;
    uint32_t delta_char = delta_line == 0 ? start.character - previous.character : start.character;
    data.insert(data.end(),
                {delta_line, delta_char, end.character - start.character, t.type, t.modifiers});
    previous = start;
    previous_end = t.span.end;
  }
  return {{"data", std::move(data)}};
}

}  // namespace raxc::lsp
