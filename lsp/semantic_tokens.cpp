// Semantic tokens: the classes of names (lexical ones, then what the Engine resolved them to),
// encoded relative to each other as LSP asks; see semantic_tokens.h for the two ways of finding
// the names.
#include "lsp/semantic_tokens.h"

#include <algorithm>
#include <charconv>
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

// Every token of `range` with its class, from a walk of the syntax tree: lexical ones first (no
// name resolution needed), then what the name resolves to (Engine::for_each_symbol).
std::vector<Classified> classify_by_tree(const analysis::Engine& engine, const Snapshot& snapshot,
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

// ---- the whole document without the tree: a lexical scan and the source maps

// What the scan finds: a class decided by the text alone (the lexical ones, which win over
// resolution as in classify_by_tree), or a dtype string, which counts only when the name does
// not resolve.
struct Candidate {
  Classified token;
  uint8_t rank;  // at one position the lowest rank wins: 0 lexical, 1 resolved, 2 dtype string
};

bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

// A string prefix as the grammar's scanner takes it (r, b, u, rb, br in either case) when a
// quote follows at once.
bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  for (char c : word)
    if (std::string_view("rRbBuU").find(c) == std::string_view::npos) return false;
  return true;
}

// The tokens of the grammar that carry a lexical class, found by scanning the text as the
// grammar's tokenizer does: comments and strings are skipped (a string's content is a dtype
// candidate), an identifier after `.` is the attribute of the identifier before it.
class LexicalScan {
 public:
  LexicalScan(const std::string& text, std::vector<Candidate>& out) : text_(text), out_(out) {}

  // The content pieces of every string literal, in order. A name the source map resolves inside
  // one (the `n` of "n * 2") is a token only when it is the whole piece, as in the tree.
  const std::vector<Span>& strings() const { return strings_; }

  // Scans [begin, end) of the text (the whole of it unless told otherwise).
  void run(size_t begin = 0, size_t end = std::string::npos) {
    size_t i = begin, n = std::min(end, text_.size());
    while (i < n) {
      char c = text_[i];
      if (c == '#') {
        while (i < n && text_[i] != '\n' && text_[i] != '\r') ++i;
        after_ = Previous::Other;
      } else if (c == '"' || c == '\'') {
        i = string_at(i, false);
      } else if (is_identifier_start(c)) {
        i = word_at(i);
      } else if (c >= '0' && c <= '9') {
        i = number_at(i);
      } else if (c == '.') {
        dot_after_ = after_ == Previous::Name ? name_ : Span{};
        dot_after_name_ = after_ == Previous::Name;
        after_ = Previous::Dot;
        ++i;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '\f') {
        ++i;  // layout does not separate `R` `.` `add`
      } else {
        after_ = Previous::Other;
        ++i;
      }
    }
  }

 private:
  enum class Previous { Other, Name, Dot };

  size_t word_at(size_t begin) {
    size_t end = begin;
    while (end < text_.size() && is_identifier_char(text_[end])) ++end;
    std::string_view word(text_.data() + begin, end - begin);
    if (end < text_.size() && (text_[end] == '"' || text_[end] == '\'') && is_string_prefix(word))
      return string_at(end, word.find_first_of("rR") != std::string_view::npos);
    frontend::Token token;
    token.span = {uint32_t(begin), uint32_t(end)};
    bool attribute = after_ == Previous::Dot;
    // `with R.dataflow():` is the dataflow block's syntax: `dataflow` is a keyword there, not a
    // name (grammar.js, dataflow_block).
    bool after_with = after_ == Previous::Name && is_word(name_, "with");
    if (attribute && dot_after_name_ && name_after_with_ && word == "dataflow" &&
        dot_after_.end + 1 == begin && text_[dot_after_.end] == '.') {
      after_ = Previous::Other;
      return end;
    }
    // The attribute of a plain identifier (`R.add`), not of `x.R.add`'s `x.R`.
    bool plain_object = attribute && dot_after_name_ && !name_was_attribute_;
    if (attribute) {
      token.kind = frontend::Token::Kind::Attribute;
      if (plain_object)
        token.object = text_.substr(dot_after_.begin, dot_after_.end - dot_after_.begin);
    }
    if (is_script_namespace(word) || is_script_namespace(token.object)) {
      token.text = std::string(word);
      if (auto c = classify_lexical(text_, token)) out_.push_back({*c, 0});
    }
    name_ = token.span;
    name_was_attribute_ = attribute;
    name_after_with_ = after_with;
    after_ = Previous::Name;
    return end;
  }

  bool is_word(Span span, std::string_view word) const {
    return std::string_view(text_).substr(span.begin, span.end - span.begin) == word;
  }

  size_t number_at(size_t i) {
    while (i < text_.size()) {
      char c = text_[i];
      if (is_identifier_char(c)) {
        ++i;
      } else if (c == '.' && !(i + 1 < text_.size() && is_identifier_start(text_[i + 1]))) {
        ++i;  // 1.5, 1.
      } else if ((c == '+' || c == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E')) {
        ++i;  // 1e-5
      } else {
        break;
      }
    }
    after_ = Previous::Other;
    return i;
  }

  // A string literal from its opening quote; its content runs between escapes are candidates.
  size_t string_at(size_t quote_at, bool raw) {
    char quote = text_[quote_at];
    bool triple = text_.compare(quote_at, 3, std::string(3, quote)) == 0;
    size_t i = quote_at + (triple ? 3 : 1), n = text_.size(), run = i;
    auto content = [&](size_t end) {
      if (end > run) add_string_content(run, end);
    };
    while (i < n) {
      char c = text_[i];
      if (c == '\\' && !raw) {
        content(i);
        i = std::min(n, i + 2);
        run = i;
      } else if (c == '\\') {
        i = std::min(n, i + 2);
      } else if (c == quote && (!triple || text_.compare(i, 3, std::string(3, quote)) == 0)) {
        content(i);
        i += triple ? 3 : 1;
        after_ = Previous::Other;
        return i;
      } else if (!triple && (c == '\n' || c == '\r')) {
        break;  // unterminated: the string ends with its line
      } else {
        ++i;
      }
    }
    content(i);
    after_ = Previous::Other;
    return i;
  }

  void add_string_content(size_t begin, size_t end) {
    strings_.push_back({uint32_t(begin), uint32_t(end)});
    std::string_view content(text_.data() + begin, end - begin);
    if (looks_like_dtype(content))
      out_.push_back({{{uint32_t(begin), uint32_t(end)}, kEnumMember, kReadonly}, 2});
  }

  const std::string& text_;
  std::vector<Candidate>& out_;
  Previous after_ = Previous::Other;
  Span name_;  // the last name
  bool name_was_attribute_ = false;
  bool name_after_with_ = false;  // it came right after the keyword `with`
  Span dot_after_;                // the name before the last `.`
  bool dot_after_name_ = false;
  std::vector<Span> strings_;
};

// Whether `at` lies inside a string's content without being all of one piece of it.
bool inside_string(const std::vector<Span>& strings, Span at) {
  auto it = std::upper_bound(strings.begin(), strings.end(), at.begin,
                             [](uint32_t offset, Span s) { return offset < s.begin; });
  if (it == strings.begin()) return false;
  --it;
  return at.begin < it->end && !(*it == at);
}

// The definitions, and the stretches between them, that hold a syntax error: there the tree's
// error recovery decides what is a name (a statement ends at its line, a bracket is closed
// early), which a lexical scan does not follow, so they are walked in the tree.
std::vector<Span> broken_regions(const frontend::Document& document) {
  std::vector<Span> out;
  auto consider = [&](Span s) {
    if (s.begin < s.end && document.overlaps_syntax_error(s)) out.push_back(s);
  };
  uint32_t at = 0;
  for (const auto& def : document.definitions()) {
    Span extent = def->text_span();
    consider({at, extent.begin});
    consider(extent);
    at = std::max(at, extent.end);
  }
  consider({at, uint32_t(document.text().size())});
  return out;
}

bool inside_any(const std::vector<Span>& regions, uint32_t offset) {
  return std::any_of(regions.begin(), regions.end(),
                     [&](Span r) { return r.begin <= offset && offset < r.end; });
}

// Replaces the candidates inside broken regions by what the tree walk finds there.
void walk_broken_regions(const analysis::Engine& engine, const Snapshot& snapshot,
                         std::vector<Candidate>& candidates) {
  const frontend::Document* document = engine.document(snapshot.uri);
  std::vector<Span> broken = document ? broken_regions(*document) : std::vector<Span>{};
  if (broken.empty()) return;
  std::erase_if(candidates,
                [&](const Candidate& c) { return inside_any(broken, c.token.span.begin); });
  for (Span region : broken)
    for (const Classified& t : classify_by_tree(engine, snapshot, region))
      candidates.push_back({t, 0});
}

// Every token with its class, without the tree (see semantic_token_data) except where there are
// syntax errors; the lexical classes only when there is no Engine (a document too large to
// analyse).
std::vector<Classified> classify_by_scan(const analysis::Engine* engine, const Snapshot& snapshot) {
  const std::string& text = snapshot.file->text();
  std::vector<Candidate> candidates;
  LexicalScan scan(text, candidates);
  scan.run();
  Span all{0, uint32_t(text.size())};
  auto resolved = [&](Span at, const analysis::Symbol& symbol) {
    if (at.empty() || std::string_view(text).substr(at.begin, at.end - at.begin) != symbol.name ||
        inside_string(scan.strings(), at))
      return;
    if (auto c = classify_symbol(symbol, at)) candidates.push_back({*c, 1});
  };
  if (engine) {
    engine->for_each_resolved(snapshot.uri, all, resolved);
    walk_broken_regions(*engine, snapshot, candidates);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.token.span.begin != b.token.span.begin ? a.token.span.begin < b.token.span.begin
                                                    : a.rank < b.rank;
  });
  std::vector<Classified> out;
  out.reserve(candidates.size());
  for (const Candidate& c : candidates)
    if (out.empty() || out.back().span.begin != c.token.span.begin) out.push_back(c.token);
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

namespace {

// LSP's relative encoding of sorted tokens; overlapping and multi-line ones are left out.
std::vector<uint32_t> encode(const SourceFile& file, std::vector<Classified> tokens,
                             PositionEncoding encoding) {
  std::sort(tokens.begin(), tokens.end(),
            [](const Classified& a, const Classified& b) { return a.span.begin < b.span.begin; });
  std::vector<uint32_t> data;
  data.reserve(tokens.size() * 5);
  Position previous{0, 0};
  uint32_t previous_end = 0;
  PositionWalker walker(file, encoding);
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
  return data;
}

}  // namespace

std::vector<uint32_t> semantic_token_data(const Snapshot& snapshot, PositionEncoding encoding) {
  std::vector<Classified> tokens;
  if (!snapshot.engine) {
    tokens = classify_by_scan(nullptr, snapshot);
  } else {
    std::lock_guard lock(snapshot.query_mutex);
    if (!snapshot.engine->document(snapshot.uri)) return {};
    tokens = classify_by_scan(snapshot.engine.get(), snapshot);
  }
  return encode(*snapshot.file, std::move(tokens), encoding);
}

std::vector<uint32_t> semantic_token_data_by_tree(const Snapshot& snapshot, Span range,
                                                  PositionEncoding encoding) {
  std::vector<Classified> tokens;
  if (!snapshot.engine) {
    // No tree (a document too large to analyse): the lexical classes of the range's lines,
    // scanned from the first one's start (a string open across that line start is missed).
    const SourceFile& file = *snapshot.file;
    uint32_t first = file.line_begin(file.location(range.begin).line);
    std::vector<Candidate> found;
    LexicalScan(file.text(), found).run(first, range.end);
    for (const Candidate& c : found)
      if (range.begin <= c.token.span.begin && c.token.span.end <= range.end)
        tokens.push_back(c.token);
  } else {
    std::lock_guard lock(snapshot.query_mutex);
    if (!snapshot.engine->document(snapshot.uri)) return {};
    tokens = classify_by_tree(*snapshot.engine, snapshot, range);
  }
  return encode(*snapshot.file, std::move(tokens), encoding);
}

json semantic_tokens_range(const Snapshot& snapshot, const json& params,
                           const FeatureOptions& options) {
  auto range = params.contains("range")
                   ? parse_range(*snapshot.file, params["range"], options.encoding)
                   : std::nullopt;
  if (!range) throw RequestError{error_code::kInvalidParams, "missing or invalid range"};
  return {{"data", semantic_token_data_by_tree(snapshot, *range, options.encoding)}};
}

std::string json_array_text(const std::vector<uint32_t>& data) {
  std::string out;
  out.resize(data.size() * 11 + 2);  // 10 digits and a comma each, brackets
  char* at = out.data();
  *at++ = '[';
  for (size_t i = 0; i < data.size(); ++i) {
    if (i) *at++ = ',';
    at = std::to_chars(at, out.data() + out.size(), data[i]).ptr;
  }
  *at++ = ']';
  out.resize(size_t(at - out.data()));
  return out;
}

}  // namespace raxc::lsp
