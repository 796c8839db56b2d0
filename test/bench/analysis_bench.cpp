// Analysis benchmark: on one file, side by side in one run,
//   * raw tree-sitter parse,
//   * full check (Engine::open + diagnostics: parse, syntax check, lowering, normalize,
//     well-formedness, inference), and its ratio to the raw parse (target <= 3x),
//   * incremental re-check after a one-character edit inside one Relax function (time, and how
//     many definitions were re-lowered / functions re-analysed; target < 2 ms).
// Best of N runs (noise on a shared machine only ever adds time).
//
//   analysis_bench FILE [--runs N] [--updates-only]
//
// --updates-only skips the raw parse and the full check (one open only). Under callgrind, only
// the update loop is instrumented (valgrind's client requests; no-ops otherwise), so
//   valgrind --tool=callgrind --instr-atstart=no build/analysis_bench FILE --runs 10 --updates-only
// counts the instructions of 2 x max(N, 10) - 2 one-character updates and diagnostics queries,
// on every thread. The first two are left out: the first update after opening checks the
// syntax of every definition once (the open checked the file as a whole).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include "analysis/engine.h"
#include "frontend/frontend.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double best_seconds(int runs, const std::function<void()>& body) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    body();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

size_t count_errors(const std::vector<raxc::Diagnostic>& diagnostics, size_t* warnings) {
  size_t errors = 0;
  *warnings = 0;
  for (const auto& d : diagnostics) {
    errors += d.severity == raxc::Severity::Error;
    *warnings += d.severity == raxc::Severity::Warning;
  }
  return errors;
}

// A place inside the middle Relax function where inserting a space keeps the program valid:
// right after the first ", " of its body.
std::optional<uint32_t> edit_point(const raxc::frontend::Document& doc) {
  std::vector<const raxc::frontend::Definition*> functions;
  for (const auto& def : doc.definitions())
    if (def->global && def->global->function()) functions.push_back(def.get());
  if (functions.empty()) return std::nullopt;
  const raxc::frontend::Definition* def = functions[functions.size() / 2];
  size_t body = def->text.find("):\n");
  size_t comma = def->text.find(", ", body == std::string::npos ? 0 : body);
  if (comma == std::string::npos) return std::nullopt;
  return def->begin + uint32_t(comma + 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: analysis_bench FILE [--runs N]\n";
    return 2;
  }
  int runs = 5;
  bool updates_only = false;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[i + 1]));
    updates_only |= std::string(argv[i]) == "--updates-only";
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const long lines = std::count(text.begin(), text.end(), '\n');

  const int whole_runs = updates_only ? 0 : runs;
  double raw = best_seconds(whole_runs, [&] { raxc::frontend::parse_tree(text); });

  size_t errors = 0, warnings = 0;
  double full = best_seconds(whole_runs, [&] {
    raxc::analysis::Engine engine;
    engine.open("bench.rx", text);
    errors = count_errors(engine.diagnostics("bench.rx"), &warnings);
  });

  // Incremental: insert a space, then delete it again; each is a one-character edit.
  raxc::analysis::Engine engine;
  engine.open("bench.rx", text);
  const raxc::analysis::UpdateStats open_stats = *engine.last_update("bench.rx");
  std::optional<uint32_t> at = edit_point(*engine.document("bench.rx"));
  if (!at) {
    std::cerr << "no Relax function to edit in " << argv[1] << "\n";
    return 2;
  }
  double update_best = 1e30, query_best = 1e30;
  raxc::analysis::UpdateStats edit_stats;
  size_t edit_errors = 0, edit_warnings = 0;
  for (int i = 0; i < 2 * std::max(runs, 10); ++i) {
    if (i == 2) CALLGRIND_START_INSTRUMENTATION;
    raxc::frontend::TextEdit edit = i % 2 == 0 ? raxc::frontend::TextEdit{*at, *at, " "}
                                               : raxc::frontend::TextEdit{*at, *at + 1, ""};
    auto start = Clock::now();
    engine.update("bench.rx", std::span(&edit, 1));
    double update = seconds_since(start);
    start = Clock::now();
    auto diagnostics = engine.diagnostics("bench.rx");
    double query = seconds_since(start);
    if (update + query < update_best + query_best) {
      update_best = update;
      query_best = query;
      edit_stats = *engine.last_update("bench.rx");
      edit_errors = count_errors(diagnostics, &edit_warnings);
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;

  std::printf("file: %s (%ld lines, %.1f MB, %zu definitions, %zu Relax functions)\n", argv[1],
              lines, double(text.size()) / 1e6, open_stats.definitions, open_stats.functions);
  std::printf("runs: best of %d\n\n", runs);
  std::printf("%-44s %10s %10s %s\n", "measure", "time", "ratio", "target");
  if (!updates_only) {
    std::printf("%-44s %8.1f ms %10s\n", "raw tree-sitter parse", raw * 1e3, "1.00x");
    std::printf("%-44s %8.1f ms %9.2fx %s\n", "full check (parse+lower+analyse+diagnostics)",
                full * 1e3, full / raw, "<= 3x");
  }
  std::printf("%-44s %8.2f ms %10s %s\n", "one-char edit: update (re-parse, re-check)",
              update_best * 1e3, "", "");
  std::printf("%-44s %8.2f ms %10s %s\n", "one-char edit: + diagnostics query",
              (update_best + query_best) * 1e3, "", "< 2 ms");
  std::printf(
      "\nafter the edit: %zu of %zu definitions re-lowered, %zu of %zu functions "
      "re-analysed%s\n",
      edit_stats.relowered, edit_stats.definitions, edit_stats.reanalysed, edit_stats.functions,
      edit_stats.full ? " (full re-lowering!)" : "");
  std::printf(
      "diagnostics: %zu errors, %zu warnings (full check); %zu errors, %zu warnings "
      "(after the edit)\n",
      errors, warnings, edit_errors, edit_warnings);
  return errors == 0 ? 0 : 1;
}
