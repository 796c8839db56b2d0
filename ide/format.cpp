// Formatting a document: `raxc fmt`'s output with the comments kept, or the reason it cannot be
// formatted (a syntax error: printing a module that did not lower cleanly would lose text).
#include "frontend/frontend.h"
#include "frontend/printer/printer.h"
#include "frontend/source.h"
#include "ide/ide.h"

namespace raxc::ide {

FormatResult format(const std::string& text) {
  FormatResult result;
  frontend::ParsedFile parsed = frontend::parse_file(text);
  if (!parsed.has_errors()) {
    result.formatted = printer::print_module(*parsed.module, {}, parsed.comments, text);
    return result;
  }
  SourceFile file("", text);
  for (const Diagnostic& d : parsed.diagnostics) {
    if (d.severity != Severity::Error) continue;
    LineCol at = file.location(d.span.begin);
    result.error = "cannot format: line " + std::to_string(at.line) + ", column " +
                   std::to_string(at.column) + ": " + d.message + " [" + code(d.id) + "]";
    return result;
  }
  result.error = "cannot format: the file has errors";
  return result;
}

}  // namespace raxc::ide
