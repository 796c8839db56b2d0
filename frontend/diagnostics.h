// Diagnostics: the registry (diagnostics.def), the typed arguments each entry declares, the
// Diagnostic value, the sink that collects them for one run, and the two renderers
// (clang-style text, JSON).
//
// An emitting site names what it reports and fills its arguments by name:
//
//   error(diag::UnclosedBracket{.bracket = "("}, at);
//
// `diag::UnclosedBracket` is generated from its registry line; `DiagPayload` takes any such
// value, renders the message once and keeps the typed value, which a tool reads back with
// `Diagnostic::as<diag::UnclosedBracket>()` instead of parsing the message.
#pragma once
#include <concepts>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/source.h"
#include "frontend/span.h"

namespace raxc {

enum class Severity : uint8_t { Error, Warning, Note };

enum class DiagId : uint16_t {
#define RAXC_ARG(KIND, NAME)
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) CODE,
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG
};

// ------------------------------------------------------------------- argument kinds

// What an argument of a diagnostic is. The kind decides the C++ type of the field and tells a
// tool what it may read from it; every kind prints as its text.
enum class ArgKind : uint8_t {
  Text,   // prose: a reason, a description, a list
  Name,   // an identifier of the user's program: variable, function, buffer, attribute
  Code,   // source text or printed IR (an expression, a token)
  SInfo,  // a printed StructInfo
  Op,     // an operator or builtin name
  DType,  // a dtype
  Path,   // a file path
  Int,    // an integer: a count, an index, a rank, a size
};

namespace diag {

using Text = std::string;
using Name = std::string;
using Code = std::string;
using SInfo = std::string;
using Op = std::string;
using DType = std::string;
using Path = std::string;

// An integer argument; built from any integral type, so a site passes `i` and not a string.
struct Int {
  int64_t value = 0;
  Int() = default;
  template <std::integral T>
  Int(T v) : value(static_cast<int64_t>(v)) {}  // NOLINT: implicit by design
};

// One struct per registry entry, named by it, with one field per argument:
//   struct UnclosedBracket { static constexpr DiagId kId = DiagId::RX1008; Code bracket; };
#define RAXC_ARG(KIND, NAME) KIND NAME;
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) \
  struct NAME {                                        \
    static constexpr DiagId kId = DiagId::CODE;        \
    ARGS                                               \
  };
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG

// Calls visit(name, kind, value) for each argument of `d`, in registry order (the fields are
// writable when `d` is).
#define RAXC_ARG(KIND, NAME) visit(#NAME, ArgKind::KIND, d.NAME);
#define RAXC_DIAG(CODE, NAME, SEVERITY, ARGS, MESSAGE) \
  template <class Visit>                               \
  void for_each_arg(const NAME& d, Visit&& visit) {    \
    (void)d;                                           \
    (void)visit;                                       \
    ARGS                                               \
  }                                                    \
  template <class Visit>                               \
  void for_each_arg(NAME& d, Visit&& visit) {          \
    (void)d;                                           \
    (void)visit;                                       \
    ARGS                                               \
  }
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
#undef RAXC_ARG

// A generated argument struct.
template <class D>
concept Entry = requires {
  { D::kId } -> std::convertible_to<DiagId>;
};

}  // namespace diag

// ---------------------------------------------------------------------------- registry

struct ArgInfo {
  const char* name;  // "bracket"
  ArgKind kind;
};

// One registry entry.
struct DiagInfo {
  DiagId id;
  const char* code;     // "RX1001"
  const char* name;     // "UnexpectedToken": the struct in raxc::diag
  Severity severity;    // the default severity
  const char* message;  // the template, with {name} placeholders naming the arguments
  std::span<const ArgInfo> args;
};

std::span<const DiagInfo> all_diagnostics();
const DiagInfo& info(DiagId id);
const char* code(DiagId id);
Severity default_severity(DiagId id);
const char* message_template(DiagId id);
// The template with each {name} replaced by its argument's position ({0}, {1}, ...): the form
// the runtime of a built library fills (backend/runtime has no registry of its own).
std::string positional_template(DiagId id);
// "RX4001" -> DiagId::RX4001; nullopt for unknown codes.
std::optional<DiagId> find_diagnostic(std::string_view code);
const char* severity_name(Severity severity);  // "error", "warning", "note"
const char* arg_kind_name(ArgKind kind);       // "Text", "Name", ...

// Replaces each {name} by the value `lookup(name)` gives. "{{" and "}}" stand for literal
// braces; a placeholder lookup finds nothing for is kept verbatim, so a missing argument is
// visible rather than silent.
std::string format_message(std::string_view message_template,
                           const std::vector<std::pair<std::string_view, std::string>>& args);

// The text an argument prints as.
inline const std::string& arg_text(const std::string& s) { return s; }
inline std::string arg_text(diag::Int i) { return std::to_string(i.value); }

// What a site reports, before it has a place: the entry, the message rendered from the typed
// arguments, and the arguments themselves. Implicitly made from any generated struct, so an
// emitting helper takes a DiagPayload and its callers write `error(diag::X{...}, at)`.
class DiagPayload {
 public:
  template <diag::Entry D>
  DiagPayload(D d)  // NOLINT: implicit by design
      : id_(D::kId), message_(render(d)), data_(std::make_shared<const D>(std::move(d))) {}

  DiagId id() const { return id_; }
  const std::string& message() const { return message_; }
  const std::shared_ptr<const void>& data() const { return data_; }

  // At the runtime's C boundary a failure arrives as a code and its arguments as text, in
  // registry order (backend/runtime/error.h): the typed value is parsed back from them.
  static DiagPayload from_positional(DiagId id, const std::vector<std::string>& args);

 private:
  DiagPayload(DiagId id, std::string message, std::shared_ptr<const void> data)
      : id_(id), message_(std::move(message)), data_(std::move(data)) {}

  template <diag::Entry D>
  static std::string render(const D& d) {
    std::vector<std::pair<std::string_view, std::string>> args;
    diag::for_each_arg(d, [&](const char* name, ArgKind, const auto& value) {
      args.emplace_back(name, arg_text(value));
    });
    return format_message(message_template(D::kId), args);
  }

  DiagId id_;
  std::string message_;
  std::shared_ptr<const void> data_;
};

// A repair the emitting site knows, said in terms of the program — what to change, not the text
// of the change. ide/ turns it into edits (indentation, fresh names, declarations of shape
// variables the function does not name yet). Its spans are like the diagnostic's: IR offsets
// when emitted, text offsets once the engine hands the diagnostic out.
struct DiagFix {
  enum class Kind : uint8_t {
    // `name: A = value` becomes `name_value = value`, then `name = R.match_cast(name_value,
    // sinfo)` after the statement. target: the binding's name; value: its value.
    MatchCastBinding,
    // The annotation at `target` becomes `sinfo`.
    ReplaceAnnotation,
    // The variable `name`, argument `argument` of the call at `target`, is checked first:
    // `name_cast = R.match_cast(name, sinfo)` on its own line before `statement`, and the
    // call passes the cast.
    MatchCastArgument,
    // The same for the variable `name` a function returns, written at `target`.
    MatchCastReturn,
    // `name` joins the R.output(...) call at `target`.
    AddToOutput,
    // The statement binding `name` at `target` is deleted, with its line.
    RemoveStatement,
  };
  Kind kind = Kind::RemoveStatement;
  Span target{};
  Span statement{};
  Span value{};                           // MatchCastBinding: the value
  int argument = -1;                      // MatchCastArgument: the argument's index
  std::string name{};                     // the variable the fix is about
  std::string sinfo{};                    // a printed StructInfo: what to cast to or annotate with
  std::vector<std::string> shape_vars{};  // the shape variables `sinfo` mentions
  bool preferred = true;                  // the fix an editor applies with one key
};

struct RelatedInfo {
  Span span;
  std::string message;
};

struct Diagnostic {
  DiagId id;
  Severity severity;
  Span span;
  std::string message;
  std::vector<RelatedInfo> related;
  // The typed arguments: a `diag::<entry>` of `id`, shared and immutable. Read with as<>().
  std::shared_ptr<const void> payload;
  // The repairs the emitting site knows, as edits of the source (empty for most codes).
  std::vector<DiagFix> fixes;

  // The typed arguments if this is a `D`, else null: `if (auto* a = d.as<diag::UnusedBinding>())`.
  template <diag::Entry D>
  const D* as() const {
    return id == D::kId ? static_cast<const D*>(payload.get()) : nullptr;
  }

  // Appends related information (rendered as a "note:"), e.g. "previous definition is here".
  Diagnostic& note(Span at, std::string text) {
    related.push_back({at, std::move(text)});
    return *this;
  }
};

// Calls visit(span) for each span of `d`'s fixes (the engine and the document translate them
// with the diagnostic's own span).
template <class Visit>
void for_each_fix_span(Diagnostic& d, Visit visit) {
  for (DiagFix& fix : d.fixes) {
    visit(fix.target);
    visit(fix.statement);
    visit(fix.value);
  }
}

// A diagnostic with its registry severity and the message rendered from the arguments.
Diagnostic make_diagnostic(DiagPayload payload, Span span);

// The arguments of `d` by name, as text, in registry order (the JSON renderer's "arguments").
std::vector<std::pair<const char*, std::string>> arguments(const Diagnostic& d);

// Collects the diagnostics of one run and applies the user's severity settings.
// Order of application in report(): disabled codes are dropped; a per-code severity override
// (`-Werror=RX4001` style) replaces the severity; then warnings-as-errors (`--werror`) and
// errors-as-warnings apply to what is left. Notes are never changed and never counted.
class DiagnosticSink {
 public:
  void report(Diagnostic diagnostic);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  std::vector<Diagnostic> take();  // moves the diagnostics out and resets the counts
  void clear();

  size_t error_count() const { return errors_; }
  size_t warning_count() const { return warnings_; }
  bool has_errors() const { return errors_ > 0; }

  // `-Wno-RX4001`. Codes whose default severity is Error cannot be disabled (returns false):
  // later stages rely on "no errors" meaning "the IR is valid".
  bool set_enabled(DiagId id, bool enabled);
  bool is_enabled(DiagId id) const;
  void set_severity(DiagId id, Severity severity);  // per-code override
  void set_warnings_as_errors(bool on) { warnings_as_errors_ = on; }
  void set_errors_as_warnings(bool on) { errors_as_warnings_ = on; }

 private:
  struct Override {
    DiagId id;
    bool enabled = true;
    std::optional<Severity> severity;
  };
  const Override* find_override(DiagId id) const;
  Override& override_for(DiagId id);

  std::vector<Diagnostic> diagnostics_;
  std::vector<Override> overrides_;  // few entries: a linear scan is the fastest lookup
  size_t errors_ = 0;
  size_t warnings_ = 0;
  bool warnings_as_errors_ = false;
  bool errors_as_warnings_ = false;
};

// ---------------------------------------------------------------------------- rendering

// Clang style, one block per diagnostic:
//   path:3:9: error: missing ':' [RX1002]
//   def f(x)
//           ^
//   path:1:1: note: related message
//   ...
// The caret line copies the tabs of the source line so it stays aligned; the underline is
// clamped to the diagnostic's first line. `color` adds ANSI escapes (the caller decides, e.g.
// from isatty). Nothing is printed for the source line of an empty file.
std::string render_text(const SourceFile& file, const Diagnostic& diagnostic, bool color);
std::string render_text(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                        bool color);

// {"file": path, "diagnostics": [{"code", "severity", "message",
//   "range": {"start": {"line", "column", "offset"}, "end": {...}},
//   "arguments": {name: text, ...}, "related": [{"message", "range"}]}]}
// line: 1-based; column: 1-based byte column; offset: 0-based byte offset. The CLI prints a
// JSON array with one such object per file. (Include <nlohmann/json.hpp> to use the result.)
nlohmann::json render_json(const SourceFile& file, const std::vector<Diagnostic>& diagnostics);
// One element of "diagnostics" above.
nlohmann::json render_json_diagnostic(const SourceFile& file, const Diagnostic& diagnostic);

}  // namespace raxc
