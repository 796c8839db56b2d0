// Frontend benchmark: raw tree-sitter parse vs. parse + syntax check + lowering of one file,
// measured side by side in one run. Reports the best of N runs (noise on shared machines only
// ever adds time), lines/s, the lower/raw ratio and peak memory.
//
//   frontend_bench FILE [--runs N]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#include "frontend/frontend.h"

namespace {

double best_seconds(int runs, const std::function<void()>& body) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return best;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: frontend_bench FILE [--runs N]\n";
    return 2;
  }
  int runs = 5;
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const long lines = std::count(text.begin(), text.end(), '\n');

  size_t errors = 0;
  double raw = best_seconds(runs, [&] { raxc::frontend::parse_tree(text); });
  long rss_after_raw = peak_rss_kib();
  double full = best_seconds(runs, [&] {
    raxc::frontend::ParsedFile parsed = raxc::frontend::parse_file(text);
    errors = 0;
    for (const auto& d : parsed.diagnostics) errors += d.severity == raxc::Severity::Error;
  });
  long rss_after_full = peak_rss_kib();

  std::printf("file:                 %s (%ld lines, %.1f MB)\n", argv[1], lines,
              double(text.size()) / 1e6);
  std::printf("runs:                 best of %d\n", runs);
  std::printf("raw tree-sitter parse: %8.1f ms  %10.0f lines/s\n", raw * 1e3, double(lines) / raw);
  std::printf("parse + lower:         %8.1f ms  %10.0f lines/s\n", full * 1e3, double(lines) / full);
  std::printf("ratio (parse+lower)/raw parse: %.2fx   (target <= 2x lowering overhead: ratio <= 3)\n",
              full / raw);
  std::printf("lowering alone / raw parse:    %.2fx   (target <= 2x)\n", (full - raw) / raw);
  std::printf("peak RSS: %ld MiB after raw parses, %ld MiB after parse + lower\n",
              rss_after_raw / 1024, rss_after_full / 1024);
  std::printf("errors reported: %zu\n", errors);
  return errors == 0 ? 0 : 1;
}
