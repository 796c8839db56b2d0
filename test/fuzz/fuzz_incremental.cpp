// Fuzz target: the analysis engine, whole and incremental.
//
// The text is opened in an Engine (syntax, lowering, normal form, well-formedness, StructInfo
// inference: everything `raxc check` runs), then the control bytes drive a sequence of edits —
// insertions of language tokens, deletions, replacements — applied with Engine::update as an
// editor sends them. After the last edit the diagnostics must equal those of a fresh Engine that
// opens the final text once the engine has settled (Engine::settle): incremental re-analysis is
// an optimisation, never a different answer at rest.
// The queries an editor makes (StructInfo at a position, symbols) run on the way.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "frontend/frontend.h"
#include "test/fuzz/fuzz_input.h"

namespace {

using raxc::Diagnostic;
using raxc::analysis::Engine;
using raxc::frontend::TextEdit;

// Fragments a person types: the edits splice these in, so mutations reach deep constructs.
constexpr const char* kFragments[] = {
    "\n",
    "    ",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    " = ",
    "R.",
    "T.",
    "R.add(",
    "R.Tensor((",
    "\"float32\"",
    "n",
    "x",
    "lv",
    "return ",
    "R.output(",
    "with R.dataflow():\n",
    "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")):\n    return x\n",
    "R.match_cast(",
    "if ",
    "else:\n",
    "# c\n",
    "\"",
    "'",
    "\\",
    "T.int64()",
    "R.shape([",
    "1",
    "-1",
    ".",
    "def ",
    "@",
};

std::string describe(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    out += std::to_string(d.span.begin) + "-" + std::to_string(d.span.end) + " " + d.message + "\n";
  }
  return out;
}

bool same(const std::vector<Diagnostic>& a, const std::vector<Diagnostic>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || !(a[i].span == b[i].span) || a[i].message != b[i].message ||
        a[i].severity != b[i].severity)
      return false;
  }
  return true;
}

TextEdit next_edit(raxc::fuzz::FuzzInput& input, const std::string& text) {
  uint32_t size = static_cast<uint32_t>(text.size());
  TextEdit edit;
  edit.begin = input.choose(size + 1);
  uint32_t removed = input.choose(8);
  edit.end = edit.begin + std::min(removed, size - edit.begin);
  switch (input.choose(3)) {
    case 0: edit.text = kFragments[input.choose(std::size(kFragments))]; break;
    case 1: edit.text = std::string(input.bytes(1 + input.choose(6))); break;
    default: break;  // a deletion
  }
  return edit;
}

void check_incremental(raxc::fuzz::FuzzInput& input) {
  const std::string key = "fuzz.rx";
  Engine engine;
  engine.open(key, std::string(input.text()));
  (void)engine.diagnostics(key);
  for (int step = 0; step < 8 && !input.exhausted(); ++step) {
    std::vector<TextEdit> edits{next_edit(input, *engine.text(key))};
    engine.update(key, edits);
    const std::string& now = *engine.text(key);
    uint32_t at = input.choose(static_cast<uint32_t>(now.size()) + 1);
    (void)engine.struct_info_at(key, at);
    (void)engine.symbol_at(key, at);
    (void)engine.references(key, at);
  }
  // Where the text has syntax errors, tree-sitter's incremental recovery may differ from a
  // fresh parse's until the document settles (as the language server does once it is quiet).
  (void)engine.settle(key);
  std::vector<Diagnostic> incremental = engine.diagnostics(key);
  (void)engine.document_symbols(key);

  Engine fresh;
  fresh.open(key, *engine.text(key));
  std::vector<Diagnostic> from_scratch = fresh.diagnostics(key);
  if (!same(incremental, from_scratch)) {
    std::fprintf(stderr,
                 "incremental diagnostics differ from a fresh check\n--- text ---\n%s\n"
                 "--- incremental ---\n%s--- fresh ---\n%s",
                 engine.text(key)->c_str(), describe(incremental).c_str(),
                 describe(from_scratch).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raxc::fuzz::FuzzInput input(data, size);
  raxc::frontend::run_with_large_stack([&] { check_incremental(input); });
  return 0;
}
