#include "frontend/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <nlohmann/json.hpp>

namespace raxc {
namespace {

// The arguments of each entry: one array per entry, ended by a sentinel (an array cannot be
// empty), which the registry's span leaves out.
#define RAXC_ARG(KIND, NAME) ArgInfo{#NAME, ArgKind::KIND},
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) \
  constexpr ArgInfo k##NAME##Args[] = {ARGS ArgInfo{nullptr, ArgKind::Text}};
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG

constexpr DiagInfo kRegistry[] = {
#define RAXC_ARG(KIND, NAME)
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) \
  {DiagId::CODE, #CODE,                                \
   #NAME,        Severity::SEVERITY,                   \
   MESSAGE,      std::span<const ArgInfo>(k##NAME##Args, std::size(k##NAME##Args) - 1)},
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG
};

// ANSI escapes, used only when the caller asks for colour.
constexpr const char* kReset = "\x1b[0m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kRed = "\x1b[1;31m";
constexpr const char* kMagenta = "\x1b[1;35m";
constexpr const char* kCyan = "\x1b[1;36m";
constexpr const char* kGreen = "\x1b[1;32m";

const char* severity_color(Severity severity) {
  switch (severity) {
    case Severity::Error: return kRed;
    case Severity::Warning: return kMagenta;
    case Severity::Note: return kCyan;
  }
  return kBold;
}

Span clamp(const SourceFile& file, Span span) {
  uint32_t begin = std::min(span.begin, file.size());
  uint32_t end = std::clamp(span.end, begin, file.size());
  return {begin, end};
}

void append_header(std::string& out, const SourceFile& file, uint32_t offset, Severity severity,
                   std::string_view message, const char* code, bool color) {
  LineCol at = file.location(offset);
  if (color) out += kBold;
  out += file.path();
  out += ':';
  out += std::to_string(at.line);
  out += ':';
  out += std::to_string(at.column);
  out += ": ";
  if (color) out += kReset, out += severity_color(severity);
  out += severity_name(severity);
  out += ": ";
  if (color) out += kReset, out += kBold;
  out += message;
  if (code) {
    out += " [";
    out += code;
    out += ']';
  }
  if (color) out += kReset;
  out += '\n';
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Longer source lines are shown as a window around the caret, as clang does: a 64 KB line of
// brackets must not print 64 KB per diagnostic.
constexpr uint32_t kMaxSnippetBytes = 200;
constexpr uint32_t kSnippetLead = 80;  // bytes kept before the caret in a window

// The source line of span.begin, then a caret under span.begin and '~' under the rest of the
// span on that line. Tabs are copied into the caret line; control characters are shown as '?'
// so that they cannot drive the terminal. A line longer than kMaxSnippetBytes is cut to a window
// around the caret, each cut shown as "...".
void append_snippet(std::string& out, const SourceFile& file, Span span, bool color) {
  if (file.size() == 0) return;
  uint32_t line = file.location(span.begin).line;
  uint32_t begin = file.line_begin(line);
  uint32_t end = file.line_end(line);
  uint32_t caret = std::clamp(span.begin, begin, end);
  std::string_view source = file.text();
  auto char_start = [&](uint32_t i) {  // moves i back to the first byte of its UTF-8 character
    while (i > begin && is_continuation(static_cast<unsigned char>(source[i]))) --i;
    return i;
  };
  uint32_t shown_begin = begin, shown_end = end;
  if (end - begin > kMaxSnippetBytes) {
    shown_begin = char_start(caret - std::min(caret - begin, kSnippetLead));
    shown_end = char_start(std::min(end, shown_begin + kMaxSnippetBytes));
    if (end - shown_end < 4) shown_end = end;
  }
  std::string marks;
  if (shown_begin > begin) out += "...", marks += "   ";
  for (unsigned char c : source.substr(shown_begin, shown_end - shown_begin))
    out += (c < 0x20 && c != '\t') || c == 0x7f ? '?' : char(c);
  if (shown_end < end) out += "...";
  out += '\n';
  uint32_t last = std::clamp(span.end, caret, shown_end);
  for (uint32_t i = shown_begin; i < caret; ++i) {
    unsigned char c = static_cast<unsigned char>(source[i]);
    if (c == '\t')
      marks += '\t';
    else if (!is_continuation(c))
      marks += ' ';
  }
  if (color) out += marks, marks.clear(), marks += kGreen;
  marks += '^';
  for (uint32_t i = caret + 1; i < last; ++i)
    if (!is_continuation(static_cast<unsigned char>(source[i]))) marks += '~';
  if (color) marks += kReset;
  out += marks;
  out += '\n';
}

nlohmann::json position_json(const SourceFile& file, uint32_t offset) {
  LineCol at = file.location(offset);
  return {{"line", at.line}, {"column", at.column}, {"offset", offset}};
}

nlohmann::json range_json(const SourceFile& file, Span span) {
  span = clamp(file, span);
  return {{"start", position_json(file, span.begin)}, {"end", position_json(file, span.end)}};
}

}  // namespace

std::span<const DiagInfo> all_diagnostics() { return kRegistry; }

const DiagInfo& info(DiagId id) { return kRegistry[static_cast<size_t>(id)]; }
const char* code(DiagId id) { return info(id).code; }
Severity default_severity(DiagId id) { return info(id).severity; }
const char* message_template(DiagId id) { return info(id).message; }

std::optional<DiagId> find_diagnostic(std::string_view code) {
  for (const DiagInfo& entry : kRegistry)
    if (code == entry.code) return entry.id;
  return std::nullopt;
}

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::Text: return "Text";
    case ArgKind::Name: return "Name";
    case ArgKind::Code: return "Code";
    case ArgKind::SInfo: return "SInfo";
    case ArgKind::Op: return "Op";
    case ArgKind::DType: return "DType";
    case ArgKind::Path: return "Path";
    case ArgKind::Int: return "Int";
  }
  return "Text";
}

namespace {

// Calls on_text(piece) for literal text and on_placeholder(name) for each {name} of a template;
// "{{" and "}}" are literal braces.
template <class OnText, class OnPlaceholder>
void scan_template(std::string_view tmpl, OnText on_text, OnPlaceholder on_placeholder) {
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if ((c == '{' || c == '}') && i + 1 < tmpl.size() && tmpl[i + 1] == c) {
      on_text(std::string_view(&tmpl[i], 1));
      ++i;
      continue;
    }
    if (c == '{') {
      size_t close = tmpl.find('}', i + 1);
      if (close != std::string_view::npos && close > i + 1) {
        std::string_view name = tmpl.substr(i + 1, close - i - 1);
        bool word = std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        });
        if (word) {
          on_placeholder(name);
          i = close;
          continue;
        }
      }
    }
    on_text(std::string_view(&tmpl[i], 1));
  }
}

}  // namespace

std::string format_message(std::string_view tmpl,
                           const std::vector<std::pair<std::string_view, std::string>>& args) {
  std::string out;
  out.reserve(tmpl.size() + 16);
  scan_template(
      tmpl, [&](std::string_view text) { out += text; },
      [&](std::string_view name) {
        for (const auto& [arg, value] : args)
          if (arg == name) {
            out += value;
            return;
          }
        out += '{';
        out += name;
        out += '}';
      });
  return out;
}

std::string positional_template(DiagId id) {
  const DiagInfo& entry = info(id);
  std::string out;
  scan_template(
      entry.message, [&](std::string_view text) { out += text; },
      [&](std::string_view name) {
        for (size_t i = 0; i < entry.args.size(); ++i)
          if (name == entry.args[i].name) {
            out += '{' + std::to_string(i) + '}';
            return;
          }
        out += '{';
        out += name;
        out += '}';
      });
  return out;
}

namespace {

void parse_arg(std::string& field, const std::string& text) { field = text; }
void parse_arg(diag::Int& field, const std::string& text) {
  field.value = std::strtoll(text.c_str(), nullptr, 10);
}

// One function per entry, kept out of line: inlined into from_positional's switch, the ~400
// entries made one function that took GCC over a minute to optimise.
template <diag::Entry D>
[[gnu::noinline]] DiagPayload payload_from_positional(const std::vector<std::string>& args) {
  D d;
  size_t next = 0;
  diag::for_each_arg(d, [&](const char*, ArgKind, auto& field) {
    parse_arg(field, next < args.size() ? args[next++] : std::string());
  });
  return DiagPayload(std::move(d));
}

}  // namespace

DiagPayload DiagPayload::from_positional(DiagId id, const std::vector<std::string>& args) {
  switch (id) {
#define RAXC_ARG(KIND, NAME)
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) \
  case DiagId::CODE:                                   \
    return payload_from_positional<diag::NAME>(args);
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG
  }
  return DiagPayload(id, std::string(), nullptr);  // not an enumerator: unreachable
}

std::vector<std::pair<const char*, std::string>> arguments(const Diagnostic& d) {
  std::vector<std::pair<const char*, std::string>> out;
  if (!d.payload) return out;
  auto add = [&](const char* name, ArgKind, const auto& value) {
    out.emplace_back(name, arg_text(value));
  };
  switch (d.id) {
#define RAXC_ARG(KIND, NAME)
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE)                         \
  case DiagId::CODE:                                                           \
    diag::for_each_arg(*static_cast<const diag::NAME*>(d.payload.get()), add); \
    break;
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG
  }
  return out;
}

Diagnostic make_diagnostic(DiagPayload payload, Span span) {
  DiagId id = payload.id();
  return Diagnostic{id, default_severity(id), span, payload.message(), {}, payload.data(), {}};
}

// ---------------------------------------------------------------------------- sink

const DiagnosticSink::Override* DiagnosticSink::find_override(DiagId id) const {
  for (const Override& o : overrides_)
    if (o.id == id) return &o;
  return nullptr;
}

DiagnosticSink::Override& DiagnosticSink::override_for(DiagId id) {
  for (Override& o : overrides_)
    if (o.id == id) return o;
  overrides_.push_back(Override{id, true, std::nullopt});
  return overrides_.back();
}

void DiagnosticSink::report(Diagnostic diagnostic) {
  if (const Override* o = find_override(diagnostic.id)) {
    if (!o->enabled) return;
    if (o->severity && diagnostic.severity != Severity::Note) diagnostic.severity = *o->severity;
  }
  if (warnings_as_errors_ && diagnostic.severity == Severity::Warning)
    diagnostic.severity = Severity::Error;
  else if (errors_as_warnings_ && diagnostic.severity == Severity::Error)
    diagnostic.severity = Severity::Warning;
  if (diagnostic.severity == Severity::Error) ++errors_;
  if (diagnostic.severity == Severity::Warning) ++warnings_;
  diagnostics_.push_back(std::move(diagnostic));
}

std::vector<Diagnostic> DiagnosticSink::take() {
  std::vector<Diagnostic> out = std::move(diagnostics_);
  clear();
  return out;
}

void DiagnosticSink::clear() {
  diagnostics_.clear();
  errors_ = warnings_ = 0;
}

bool DiagnosticSink::set_enabled(DiagId id, bool enabled) {
  if (!enabled && default_severity(id) == Severity::Error) return false;
  override_for(id).enabled = enabled;
  return true;
}

bool DiagnosticSink::is_enabled(DiagId id) const {
  const Override* o = find_override(id);
  return !o || o->enabled;
}

void DiagnosticSink::set_severity(DiagId id, Severity severity) {
  override_for(id).severity = severity;
}

// ---------------------------------------------------------------------------- rendering

std::string render_text(const SourceFile& file, const Diagnostic& d, bool color) {
  std::string out;
  Span span = clamp(file, d.span);
  append_header(out, file, span.begin, d.severity, d.message, code(d.id), color);
  append_snippet(out, file, span, color);
  for (const RelatedInfo& r : d.related) {
    Span at = clamp(file, r.span);
    append_header(out, file, at.begin, Severity::Note, r.message, nullptr, color);
    append_snippet(out, file, at, color);
  }
  return out;
}

std::string render_text(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                        bool color) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += render_text(file, d, color);
  return out;
}

nlohmann::json render_json_diagnostic(const SourceFile& file, const Diagnostic& d) {
  nlohmann::json related = nlohmann::json::array();
  for (const RelatedInfo& r : d.related)
    related.push_back({{"message", to_valid_utf8(r.message)}, {"range", range_json(file, r.span)}});
  nlohmann::json args = nlohmann::json::object();
  for (const auto& [name, value] : arguments(d)) args[name] = to_valid_utf8(value);
  return {{"code", code(d.id)},
          {"severity", severity_name(d.severity)},
          {"message", to_valid_utf8(d.message)},
          {"range", range_json(file, d.span)},
          {"arguments", std::move(args)},
          {"related", std::move(related)}};
}

nlohmann::json render_json(const SourceFile& file, const std::vector<Diagnostic>& diagnostics) {
  nlohmann::json list = nlohmann::json::array();
  for (const Diagnostic& d : diagnostics) list.push_back(render_json_diagnostic(file, d));
  return {{"file", to_valid_utf8(file.path())}, {"diagnostics", std::move(list)}};
}

}  // namespace raxc
