// Fuzz target: text → parse + lower → print → parse again.
//
// Whatever the text, parsing and lowering must not crash, hang or leak. When the text lowers
// without errors, the printed module (what `raxc fmt` writes) must lower without errors too, and
// from then on printing must be stable: `raxc fmt` output that `raxc check` rejects, or that
// changes on every `fmt`, is a bug (README "Fuzzing"). The first print may still change once
// (a form the parser accepts but the printer spells differently).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/frontend.h"
#include "frontend/printer/printer.h"
#include "test/fuzz/fuzz_input.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& first, const std::string& second) {
  std::fprintf(stderr, "round trip: %s\n--- first print ---\n%s\n--- second ---\n%s\n", what,
               first.c_str(), second.c_str());
  std::abort();
}

void round_trip(std::string_view text) {
  raxc::frontend::ParsedFile parsed = raxc::frontend::parse_file(text);
  if (parsed.has_errors()) return;
  std::string printed = raxc::printer::print_module(*parsed.module, {}, parsed.comments, text);
  raxc::frontend::ParsedFile again = raxc::frontend::parse_file(printed);
  if (again.has_errors()) {
    std::string messages;
    for (const raxc::Diagnostic& d : again.diagnostics) messages += d.message + "\n";
    fail("the printed module does not lower", printed, messages);
  }
  std::string reprinted = raxc::printer::print_module(*again.module, {}, again.comments, printed);
  if (reprinted == printed) return;
  raxc::frontend::ParsedFile third = raxc::frontend::parse_file(reprinted);
  if (third.has_errors()) fail("the printed module does not lower", printed, reprinted);
  std::string stable = raxc::printer::print_module(*third.module, {}, third.comments, reprinted);
  if (stable != reprinted) fail("printing is not stable", reprinted, stable);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raxc::fuzz::FuzzInput input(data, size);
  raxc::frontend::run_with_large_stack([&] { round_trip(input.text()); });
  return 0;
}
