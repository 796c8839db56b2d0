// Diagnostics: the registry (diagnostics.def), the Diagnostic value, the sink that collects
// them for one run, and the two renderers (clang-style text, JSON).
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/source.h"
#include "frontend/span.h"

namespace raxc {

enum class Severity : uint8_t { Error, Warning, Note };

enum class DiagId : uint16_t {
#define RAXC_DIAG(ID, CODE, SEVERITY, MESSAGE) ID,
#include "frontend/diagnostics.def"
#undef RAXC_DIAG
};

// One registry entry.
struct DiagInfo {
  DiagId id;
  const char* code;     // "RX1001"
  Severity severity;    // the default severity
  const char* message;  // the template, with {0}, {1}, ... placeholders
};

std::span<const DiagInfo> all_diagnostics();
const DiagInfo& info(DiagId id);
const char* code(DiagId id);
Severity default_severity(DiagId id);
const char* message_template(DiagId id);
// "RX4001" -> DiagId::RX4001; nullopt for unknown codes.
std::optional<DiagId> find_diagnostic(std::string_view code);
const char* severity_name(Severity severity);  // "error", "warning", "note"

// Replaces {N} by args[N]. "{{" and "}}" stand for literal braces; placeholders without an
// argument are kept verbatim, so a missing argument is visible rather than silent.
std::string format_message(std::string_view message_template, const std::vector<std::string>& args);

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
  // The template's arguments ({0}, {1}, ...): the facts behind the message, for tools (the
  // language server's code actions) that must not parse the text.
  std::vector<std::string> args;

  // Appends related information (rendered as a "note:"), e.g. "previous definition is here".
  Diagnostic& note(Span at, std::string text) {
    related.push_back({at, std::move(text)});
    return *this;
  }
};

// A diagnostic with its registry severity and the template filled with `args`.
Diagnostic make_diagnostic(DiagId id, Span span, std::vector<std::string> args = {});

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
//   "related": [{"message", "range"}]}]}
// line: 1-based; column: 1-based byte column; offset: 0-based byte offset. The CLI prints a
// JSON array with one such object per file. (Include <nlohmann/json.hpp> to use the result.)
nlohmann::json render_json(const SourceFile& file, const std::vector<Diagnostic>& diagnostics);
// One element of "diagnostics" above.
nlohmann::json render_json_diagnostic(const SourceFile& file, const Diagnostic& diagnostic);

}  // namespace raxc
